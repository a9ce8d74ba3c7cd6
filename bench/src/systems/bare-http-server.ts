import http from 'node:http';

/**
 * The bare node:http ceiling's server, a process of its own so its CPU is sampled alone: every request's body is read
 * and `JSON.parse`d, then discarded, and answered `200 {"acknowledgement":"ACK"}` (what MMMQ answers, minus the
 * message's id and offset). Nothing is stored. Listens on 127.0.0.1:`BENCH_BARE_HTTP_PORT`.
 */
const ANSWER = '{"acknowledgement":"ACK"}';
const HEADERS = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ANSWER) };

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"acknowledgement":"NACK","message":"not JSON"}');
      return;
    }
    response.writeHead(200, HEADERS).end(ANSWER);
  });
});
// Keep-alive connections stay open between a publisher's requests, however long the bench pauses between rounds.
server.keepAliveTimeout = 0;
server.listen(Number(process.env.BENCH_BARE_HTTP_PORT), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
