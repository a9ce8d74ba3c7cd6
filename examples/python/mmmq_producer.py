#!/usr/bin/env python3
"""Publish messages to an MMMQ broker over HTTP, with nothing but the Python standard library.

    python3 mmmq_producer.py --topic order.created --id order-42 '{"orderId": 42}'
    python3 mmmq_producer.py --topic order.created --batch '{"n": 1}' '{"n": 2}' '{"n": 3}'

Each CONTENT is a JSON text, sent byte for byte as given: the broker stores and delivers it unchanged.
Every message gets its id before the first attempt (--id, once per CONTENT, else a random UUID), so a retry
after a lost answer carries the same id and consumers can recognise the repeat. 429 and 503 answers are
retried after their Retry-After, connection errors after a short backoff, for at most --retry-for seconds;
any other refusal (400, 401, 403, 409, 413, 415) is final. Prints one line per stored message:
    ACK <id> <topic> <offset>
Environment: MMMQ_BROKER (default http://127.0.0.1:8080), MMMQ_TOKEN (a token with the publish role, for a
broker with tokens).
"""
import argparse
import http.client
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid

DEFAULT_BROKER = "http://127.0.0.1:8080"
DEFAULT_RETRY_FOR_SECONDS = 60  # how long to keep retrying one request before giving up
FIRST_BACKOFF_SECONDS = 0.2  # wait after the first connection error; doubles up to MAX_BACKOFF_SECONDS
MAX_BACKOFF_SECONDS = 5.0
REQUEST_TIMEOUT_SECONDS = 30  # the broker answers once the message is durable: an fsync, not a long wait


class PublishFailed(Exception):
    pass


def post(broker, path, body, retry_for):
    """POSTs a JSON body, retrying the same bytes on 429/503 and connection errors. Returns the parsed answer."""
    headers = {"Content-Type": "application/json"}
    if os.environ.get("MMMQ_TOKEN"):
        headers["Authorization"] = "Bearer " + os.environ["MMMQ_TOKEN"]
    deadline = time.monotonic() + retry_for
    backoff = FIRST_BACKOFF_SECONDS
    while True:
        request = urllib.request.Request(broker + path, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_SECONDS) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:  # the broker answered, and refused: nothing was stored
            reason = "%d %s" % (error.code, error.read().decode("utf-8", "replace"))
            if error.code not in (429, 503):
                raise PublishFailed(reason)
            try:
                wait = float(error.headers.get("Retry-After", "1"))
            except ValueError:  # an HTTP date instead of seconds: the broker never sends one
                wait = 1.0
        except (OSError, http.client.HTTPException) as error:  # no answer: stored or not, retry with the same id
            reason, wait, backoff = str(error), backoff, min(backoff * 2, MAX_BACKOFF_SECONDS)
        if time.monotonic() + wait > deadline:
            raise PublishFailed("gave up after %g s: %s" % (retry_for, reason))
        print("retrying in %.1f s: %s" % (wait, reason), file=sys.stderr)
        time.sleep(wait)


def message_json(topic, message_id, content):
    """The message as JSON text, with the content's own bytes in it (not parsed and serialised again)."""
    return '{"topic":%s,"id":%s,"content":%s}' % (json.dumps(topic), json.dumps(message_id), content)


def main():
    parser = argparse.ArgumentParser(description="Publish messages to an MMMQ broker.")
    parser.add_argument("contents", nargs="+", metavar="CONTENT", help="a message's content, as JSON text")
    parser.add_argument("--topic", required=True)
    parser.add_argument("--id", action="append", default=[], help="message id, once per CONTENT in order")
    parser.add_argument("--batch", action="store_true", help="one request, stored as one commit (all or none)")
    parser.add_argument("--broker", default=os.environ.get("MMMQ_BROKER", DEFAULT_BROKER))
    parser.add_argument("--retry-for", type=float, default=DEFAULT_RETRY_FOR_SECONDS, metavar="SECONDS")
    args = parser.parse_args()
    if len(args.id) > len(args.contents):
        parser.error("more --id than contents")
    for content in args.contents:
        try:
            json.loads(content)  # refuse what is not JSON before the broker does
        except ValueError as error:
            parser.error("CONTENT %r is not JSON: %s" % (content, error))
    ids = args.id + [str(uuid.uuid4()) for _ in args.contents[len(args.id):]]
    messages = [message_json(args.topic, i, c) for i, c in zip(ids, args.contents)]
    try:
        if args.batch:
            body = '{"messages":[%s]}' % ",".join(messages)
            for ack in post(args.broker, "/mmmq/messages/batch", body.encode("utf-8"), args.retry_for)["messages"]:
                print_ack(ack)
        else:
            for message in messages:
                print_ack(post(args.broker, "/mmmq/messages", message.encode("utf-8"), args.retry_for))
    except PublishFailed as error:
        sys.exit("publish failed: %s" % error)


def print_ack(ack):
    print("ACK %s %s %d" % (ack["id"], ack["topic"], ack["offset"]), flush=True)


if __name__ == "__main__":
    main()
