#!/usr/bin/env python3
"""Consume messages from an MMMQ broker, by push or by pull, with nothing but the Python standard library.

    python3 mmmq_consumer.py push --consumer-id billing --pattern 'order.*' [--listen 127.0.0.1:8081]
    python3 mmmq_consumer.py pull --consumer-id billing-pull --pattern 'order.*'

push: serves POST /mmmq/messages (and POST /mmmq/messages/batch with --batch-size above 1), registers its
      address as a host of the dispatcher, answers ACK or NACK per message, and removes its host on exit.
pull: registers a dispatcher without a host, then long-polls POST /mmmq/consumers/{id}/fetch and acknowledges
      what it handled with the leases of the messages (NACK for a handler error).
The handler writes each message as a JSON line {"id","topic","offset","deliveryCount","content"} to stdout or
--output FILE, "content" being the exact bytes the producer sent. Stops on SIGINT/SIGTERM, or after
--exit-after distinct messages. Environment: MMMQ_BROKER (default http://127.0.0.1:8080), MMMQ_TOKEN (a token
with the consume role, for a broker with tokens).
"""
import argparse
import http.client
import json
import os
import re
import signal
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_BROKER = "http://127.0.0.1:8080"
DEFAULT_LISTEN = "127.0.0.1:0"  # port 0: any free port; the one chosen is what gets registered
DEFAULT_BATCH_SIZE = 1  # push: messages per request (above 1: the batch route); pull: messages per fetch
DEFAULT_WAIT_MS = 20000  # pull: how long one fetch may wait for a message (long poll)
REQUEST_TIMEOUT_SECONDS = 30  # any broker call, on top of the long poll's wait
RETRY_SECONDS = 1.0  # pull: pause after the broker could not be reached or answered 429/503
WHITESPACE = re.compile(r"[ \t\n\r]*")
DECODER = json.JSONDecoder()


class BrokerError(Exception):
    def __init__(self, status, text):
        super().__init__("%d %s" % (status, text))
        self.status = status


class Broker:
    def __init__(self, url):
        self.url = url

    def call(self, method, path, body=None, timeout=REQUEST_TIMEOUT_SECONDS):
        """One request; returns the answer's text. Raises BrokerError for an HTTP error status."""
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if os.environ.get("MMMQ_TOKEN"):
            headers["Authorization"] = "Bearer " + os.environ["MMMQ_TOKEN"]
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            raise BrokerError(error.code, error.read().decode("utf-8", "replace")) from None


def skip(text, pos, char=""):
    """The position after whitespace, then `char` if it is there, then whitespace."""
    pos = WHITESPACE.match(text, pos).end()
    return WHITESPACE.match(text, pos + 1).end() if char and text[pos] == char else pos


def members(text, pos=0):
    """Splits the JSON object or array at text[pos:] one level deep into the exact texts of its members:
    {name: text} or [text, ...]. This keeps "content" byte for byte as the producer sent it."""
    pos = skip(text, pos)
    is_object = text[pos] == "{"
    found = {} if is_object else []
    pos = skip(text, pos + 1)
    while text[pos] not in "}]":
        if is_object:
            name, pos = DECODER.raw_decode(text, pos)
            pos = skip(text, pos, ":")
        _, end = DECODER.raw_decode(text, pos)
        if is_object:
            found[name] = text[pos:end]
        else:
            found.append(text[pos:end])
        pos = skip(text, end, ",")
    return found


def parse_message(text):
    message = json.loads(text)
    message["raw_content"] = members(text)["content"]
    return message


def parse_messages(text):
    """The messages of a batched push or a fetch answer: {"messages":[...]}."""
    return [parse_message(item) for item in members(members(text)["messages"])]


class Handler:
    """The application's side: writes each message as a JSON line. A handler that raises NACKs the message."""

    def __init__(self, output, exit_after, fail_once):
        self.output, self.exit_after, self.fail_once = output, exit_after, fail_once
        self.seen, self.lock, self.finished = set(), threading.Lock(), threading.Event()

    def handle(self, message):
        if message["id"] == self.fail_once:
            self.fail_once = None
            raise RuntimeError("failing the first delivery of %s on purpose (--fail-once)" % message["id"])
        line = '{"id":%s,"topic":%s,"offset":%d,"deliveryCount":%d,"content":%s}\n' % (
            json.dumps(message["id"]), json.dumps(message["topic"]), message["offset"],
            message["deliveryCount"], message["raw_content"])
        self.output.write(line)
        self.output.flush()

    def settle(self, message):
        """Runs the handler (one message at a time) and returns the acknowledgement (docs/delivery.md § What the consumer receives)."""
        with self.lock:
            try:
                self.handle(message)
            except Exception as error:
                return {"acknowledgement": "NACK", "message": str(error)}
            self.seen.add((message["topic"], message["offset"]))
            if self.exit_after and len(self.seen) >= self.exit_after:
                self.finished.set()
            return {"acknowledgement": "ACK"}


def register(broker, consumer_id, pattern, host=None, batch_size=DEFAULT_BATCH_SIZE):
    definition = {"consumerId": consumer_id, "pattern": pattern}
    if host:
        definition.update(host=host, batchSize=batch_size)
    broker.call("POST", "/mmmq/dispatchers", definition)  # 201 created, or 200 host added to an existing group


def push(broker, args, handler):
    class PushRequest(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the broker reuses its connections

        def do_POST(self):
            text = self.rfile.read(int(self.headers["Content-Length"])).decode("utf-8")
            if self.path == "/mmmq/messages":
                reply = handler.settle(parse_message(text))
            elif self.path == "/mmmq/messages/batch":
                reply = {"acknowledgements": [handler.settle(m) for m in parse_messages(text)]}
            else:
                self.send_error(404)
                return
            body = json.dumps(reply).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            if handler.finished.is_set():
                stopping.set()  # only now: the broker has the last acknowledgement

        def log_message(self, *_):
            pass  # one line per push is noise

    stopping = threading.Event()
    address, port = args.listen.rsplit(":", 1)
    server = ThreadingHTTPServer((address, int(port)), PushRequest)
    url = args.advertise or "http://%s:%d" % (address, server.server_address[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("listening on %s" % url, file=sys.stderr, flush=True)
    register(broker, args.consumer_id, args.pattern, url, args.batch_size)
    try:
        stopping.wait()
    finally:
        server.shutdown()
        try:
            host = urllib.parse.quote(url, safe="")  # encodeURIComponent
            broker.call("DELETE", "/mmmq/dispatchers/%s/hosts/%s" % (args.consumer_id, host))
        except (BrokerError, OSError, http.client.HTTPException) as error:
            print("warning: could not remove host %s from dispatcher %s: %s" % (url, args.consumer_id, error),
                  file=sys.stderr)


def pull(broker, args, handler):
    register(broker, args.consumer_id, args.pattern)
    base = "/mmmq/consumers/%s" % args.consumer_id
    request = {"max": args.batch_size, "waitMs": args.wait_ms}
    while not handler.finished.is_set():
        try:
            timeout = args.wait_ms / 1000 + REQUEST_TIMEOUT_SECONDS
            text = broker.call("POST", base + "/fetch", request, timeout)
            settled = {"ACK": [], "NACK": []}
            for message in parse_messages(text):
                settled[handler.settle(message)["acknowledgement"]].append(message["lease"])
            for verb, leases in (("ack", settled["ACK"]), ("nack", settled["NACK"])):
                if leases:
                    lost = json.loads(broker.call("POST", "%s/%s" % (base, verb), {"leases": leases}))["lost"]
                    if lost:  # the lease expired or moved on: that message comes again, its ack did not count
                        print("%d lease(s) lost before the %s: delivered again" % (len(lost), verb), file=sys.stderr)
        except (BrokerError, OSError, http.client.HTTPException) as error:
            if isinstance(error, BrokerError) and error.status not in (429, 503):
                raise
            print("broker unavailable (%s), retrying in %g s" % (error, RETRY_SECONDS), file=sys.stderr)
            time.sleep(RETRY_SECONDS)


def main():
    parser = argparse.ArgumentParser(description="Consume messages from an MMMQ broker.")
    parser.add_argument("mode", choices=["push", "pull"])
    parser.add_argument("--consumer-id", required=True)
    parser.add_argument("--pattern", required=True, help="topic pattern: order.created, order.*, audit.**")
    parser.add_argument("--broker", default=os.environ.get("MMMQ_BROKER", DEFAULT_BROKER))
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    parser.add_argument("--listen", default=DEFAULT_LISTEN, help="push: address:port to serve")
    parser.add_argument("--advertise", help="push: the URL the broker should push to (default: --listen's)")
    parser.add_argument("--wait-ms", type=int, default=DEFAULT_WAIT_MS, help="pull: long-poll wait per fetch")
    parser.add_argument("--output", type=argparse.FileType("w", encoding="utf-8"), default=sys.stdout)
    parser.add_argument("--exit-after", type=int, metavar="N", help="stop after N distinct messages")
    parser.add_argument("--fail-once", metavar="ID", help="demo: the handler fails message ID's first delivery")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM stops like Ctrl-C: cleanly
    handler = Handler(args.output, args.exit_after, args.fail_once)
    try:
        (push if args.mode == "push" else pull)(Broker(args.broker), args, handler)
    except KeyboardInterrupt:
        pass
    except BrokerError as error:
        sys.exit("broker refused: %s" % error)


if __name__ == "__main__":
    main()
