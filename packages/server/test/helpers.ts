/** Reads server-sent events from `url` until `predicate` holds for one; returns it. */
export async function waitForEvent(
  url: string,
  predicate: (name: string, data: unknown) => boolean,
  init: RequestInit = {},
  onOpen: () => Promise<void> | void = () => undefined,
): Promise<{ name: string; data: unknown }> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  if (!response.ok || response.body === null) throw new Error(`GET ${url}: ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  await onOpen();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('event stream ended');
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const name = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (name !== undefined && data !== undefined) {
          const parsed: unknown = JSON.parse(data);
          if (predicate(name, parsed)) return { name, data: parsed };
        }
        end = buffer.indexOf('\n\n');
      }
    }
  } finally {
    controller.abort();
  }
}
