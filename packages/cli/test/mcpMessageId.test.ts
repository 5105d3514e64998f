import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idOfMessage } from '../src/mcp/messageId.js';

const bytes = (message: unknown) => Buffer.from(JSON.stringify(message));

describe('idOfMessage', () => {
  it('reads the id first, last or between large string arguments', () => {
    const args = { tool_response: `${'x'.repeat(100_000)}"id":99 \\"id\\": 98`, cwd: '/p' };
    const params = { name: 'hook', arguments: args };
    expect(idOfMessage(bytes({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }))).toBe(7);
    expect(idOfMessage(bytes({ method: 'tools/call', params, jsonrpc: '2.0', id: 8 }))).toBe(8);
    expect(idOfMessage(bytes({ method: 'tools/call', id: 'a"b\\c', params }))).toBe('a"b\\c');
  });

  it('reads a spaced id and finds none where there is none', () => {
    expect(idOfMessage(Buffer.from('{ "method": "ping", "id":  12 }'))).toBe(12);
    expect(idOfMessage(bytes({ method: 'notifications/initialized', params: { x: '"id":1' } }))).toBe(
      undefined,
    );
    expect(idOfMessage(Buffer.from('{"id":null}'))).toBe(undefined);
    expect(idOfMessage(bytes({ id: 'y'.repeat(5000) }))).toBe(undefined);
  });

  it("finds none when a key `id` stands in the params too, before or after the message's own", () => {
    const params = { name: 'hook', arguments: { id: ' ' } };
    expect(idOfMessage(bytes({ id: 3, method: 'tools/call', params }))).toBe(undefined);
    expect(idOfMessage(bytes({ method: 'tools/call', params, id: 3 }))).toBe(undefined);
  });

  it('agrees with JSON.parse whatever the id, its position and the strings around it', () => {
    const id = fc.oneof(fc.nat(), fc.string({ maxLength: 50 }));
    const args = fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 200 }));
    fc.assert(
      fc.property(id, args, fc.nat(3), (value, given, place) => {
        const members: [string, unknown][] = [
          ['jsonrpc', '2.0'],
          ['method', 'tools/call'],
          ['params', { name: 'hook', arguments: given }],
        ];
        members.splice(place, 0, ['id', value]);
        // an argument named `id` is a second key `id`: which is the message's own needs a parse
        const expected = Object.hasOwn(given, 'id') ? undefined : value;
        expect(idOfMessage(bytes(Object.fromEntries(members)))).toEqual(expected);
      }),
    );
  });
});
