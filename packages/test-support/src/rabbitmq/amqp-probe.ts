import { connect } from 'node:net';

/** AMQP 0-9-1's protocol header: what a client sends first. */
const AMQP_PROTOCOL_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1]);
/** A method frame (connection.start) is the server's answer to the header. */
const FRAME_METHOD = 1;
/** One probe; a node still booting either refuses the connection or answers within this. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * Whether an AMQP 0-9-1 server answers on 127.0.0.1:`port`: sends the protocol header and waits for connection.start.
 * A listening socket alone is not enough (the port may belong to something else, or the node may still be booting).
 */
export function answersAmqp(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (answered: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), PROBE_TIMEOUT_MS);
    socket.once('connect', () => socket.write(AMQP_PROTOCOL_HEADER));
    socket.once('data', (chunk: Buffer) => done(chunk[0] === FRAME_METHOD));
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}
