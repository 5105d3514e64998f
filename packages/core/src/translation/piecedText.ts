/** Characters of a text sent in pieces that are kept at its head, and as many at its tail. */
export const PIECED_TEXT_HALF = 32_768;

/**
 * A text that arrives in pieces (a model's reply streamed as deltas), held within bounds: its first
 * and last {@link PIECED_TEXT_HALF} characters, with the length and a 32-bit FNV-1a hash of what is
 * left out between them, so that memory stays the same however long the message grows, and two
 * long texts that differ in their middle still read differently.
 * @example const text = new PiecedText(); text.add('Hel'); text.add('lo'); text.take(); // 'Hello'
 */
export class PiecedText {
  private head = '';
  private tail = '';
  private dropped = 0;
  private hash = 0x811c9dc5;

  /** Appends one piece. */
  add(piece: string): void {
    let rest = piece;
    if (this.head.length < PIECED_TEXT_HALF) {
      const room = PIECED_TEXT_HALF - this.head.length;
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest === '') return;
    this.tail += rest;
    if (this.tail.length > 2 * PIECED_TEXT_HALF) this.keepTail();
  }

  /** Keeps the last {@link PIECED_TEXT_HALF} characters of the tail, hashing what goes. */
  private keepTail(): void {
    const cut = this.tail.length - PIECED_TEXT_HALF;
    this.drop(this.tail.slice(0, cut));
    this.tail = this.tail.slice(cut);
  }

  /** The text so far (its head, a line for what was left out, its tail), and starts afresh. */
  take(): string {
    if (this.tail.length > PIECED_TEXT_HALF) this.keepTail();
    const text =
      this.dropped === 0
        ? `${this.head}${this.tail}`
        : `${this.head}\n[… ${this.dropped} characters, fnv ${(this.hash >>> 0).toString(16)} …]\n${this.tail}`;
    this.head = '';
    this.tail = '';
    this.dropped = 0;
    this.hash = 0x811c9dc5;
    return text;
  }

  private drop(text: string): void {
    this.dropped += text.length;
    let hash = this.hash;
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
    this.hash = hash;
  }
}
