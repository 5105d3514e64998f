// Loaded into every documentation example (docs/examples.test.ts): an example that listens on a
// fixed port fails whenever that port is taken on the machine running the tests, so it must ask
// for port 0 and print the address it got. This makes such an example fail every time, not only then.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnAFreePortOnly(...args) {
  const first = args[0];
  const port = typeof first === 'object' && first !== null ? first.port : first;
  if (typeof port === 'number' && port !== 0) {
    throw new Error(
      `a documentation example listens on the fixed port ${port}: use port 0 and print the address`,
    );
  }
  return listen.apply(this, args);
};
