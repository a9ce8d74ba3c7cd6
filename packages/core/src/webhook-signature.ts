import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { inspect } from 'node:util';
import { MmmqError } from './errors/mmmq-error';
import { MmmqValidationError } from './errors/mmmq-validation-error';

/**
 * Signed pushes follow Standard Webhooks (https://www.standardwebhooks.com): the broker sends these three
 * headers, and the signature is `v1,` + base64 HMAC-SHA256 over `${id}.${timestamp}.${body}` with the secret's
 * key. The id stays the same when a push is retried; the timestamp is that of each attempt.
 */
export const WEBHOOK_ID_HEADER = 'webhook-id';
/** Unix seconds at which the attempt was signed. */
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
/** Space-separated `v1,<base64>` signatures; one matching a known secret is enough. */
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

/** Every signing secret starts with this, followed by the base64 of its key. */
export const SIGNING_SECRET_PREFIX = 'whsec_';
/** Shortest key a secret may carry (192 bits), as Standard Webhooks recommends. */
export const SIGNING_SECRET_MIN_BYTES = 24;
/** Longest key a secret may carry (512 bits), as Standard Webhooks recommends. */
export const SIGNING_SECRET_MAX_BYTES = 64;
/** Key length of secrets made by {@link SigningSecret.generate}. */
export const DEFAULT_SIGNING_SECRET_BYTES = 32;
/** How far a push's timestamp may be from the receiver's clock, either way, before it is refused as stale. */
export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

const SIGNATURE_VERSION = 'v1';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const TIMESTAMP = /^\d{1,15}$/;
const HMAC_BYTES = 32;

/** The keys of the secrets, out of reach of anything that walks an object's properties. */
const keys = new WeakMap<SigningSecret, Buffer>();

function hmac(secret: SigningSecret, id: string, timestamp: string, body: Buffer): Buffer {
  return createHmac('sha256', keys.get(secret)!).update(`${id}.${timestamp}.`).update(body).digest();
}

/** A signing secret is not `whsec_` + base64 of 24 to 64 bytes. The message never quotes the secret. */
export class InvalidSigningSecretError extends MmmqValidationError {}

/** A push's signature headers are missing, malformed, stale or match no known secret. */
export class WebhookVerificationError extends MmmqError {}

/**
 * A validated `whsec_…` secret. Its text only comes out through {@link reveal}: JSON, string conversion and
 * `util.inspect` (so loggers and error reporters) show `[redacted]`.
 */
export class SigningSecret {
  readonly #text: string;

  private constructor(text: string, key: Buffer) {
    this.#text = text;
    keys.set(this, key);
  }

  /**
   * @param name names the secret in the error (an option, a field), never its value
   * @throws InvalidSigningSecretError
   */
  static parse(input: unknown, name = 'signingSecret'): SigningSecret {
    const shape = `"${SIGNING_SECRET_PREFIX}" followed by the base64 of ${SIGNING_SECRET_MIN_BYTES} to ${SIGNING_SECRET_MAX_BYTES} random bytes`;
    if (typeof input !== 'string' || !input.startsWith(SIGNING_SECRET_PREFIX)) {
      throw new InvalidSigningSecretError(`${name} must be a string: ${shape}`);
    }
    const encoded = input.slice(SIGNING_SECRET_PREFIX.length);
    if (encoded.length === 0 || !BASE64.test(encoded)) {
      throw new InvalidSigningSecretError(`${name} must be ${shape}; what follows the prefix is not base64`);
    }
    const key = Buffer.from(encoded, 'base64');
    if (key.length < SIGNING_SECRET_MIN_BYTES || key.length > SIGNING_SECRET_MAX_BYTES) {
      throw new InvalidSigningSecretError(`${name} must be ${shape}; it holds ${key.length} bytes`);
    }
    return new SigningSecret(input, key);
  }

  /** A new secret of `bytes` random bytes (default {@link DEFAULT_SIGNING_SECRET_BYTES}). */
  static generate(bytes = DEFAULT_SIGNING_SECRET_BYTES): SigningSecret {
    return SigningSecret.parse(SIGNING_SECRET_PREFIX + randomBytes(bytes).toString('base64'), 'bytes');
  }

  /** The `whsec_…` text, for the few places that must store or send it. */
  reveal(): string {
    return this.#text;
  }

  /** `v1,<base64 HMAC-SHA256(key, "${id}.${timestamp}.${body}")>`. */
  sign(id: string, timestamp: number, body: Buffer): string {
    return `${SIGNATURE_VERSION},${hmac(this, id, String(timestamp), body).toString('base64')}`;
  }

  /** Compared in constant time. */
  equals(other: SigningSecret): boolean {
    const mine = keys.get(this)!;
    const theirs = keys.get(other)!;
    return mine.length === theirs.length && timingSafeEqual(mine, theirs);
  }

  toJSON(): string {
    return '[redacted]';
  }

  toString(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return 'SigningSecret [redacted]';
  }
}

/** The three headers of a signed push, as received (absent ones undefined). */
export interface WebhookHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

export interface VerifyWebhookOptions {
  /** Default {@link DEFAULT_SIGNATURE_TOLERANCE_SECONDS}. */
  toleranceSeconds?: number;
  /** The receiver's clock, unix seconds. Default now. */
  nowSeconds?: number;
}

/**
 * Checks a signed push: all three headers present, the timestamp within the tolerance of `now`, and one of the
 * `v1` signatures equal (constant-time) to the HMAC of one of `secrets` over the exact body bytes.
 *
 * @throws WebhookVerificationError saying which check failed, never quoting a secret
 */
export function verifyWebhook(
  secrets: readonly SigningSecret[],
  headers: WebhookHeaders,
  body: Buffer,
  options: VerifyWebhookOptions = {},
): void {
  const { toleranceSeconds = DEFAULT_SIGNATURE_TOLERANCE_SECONDS, nowSeconds = Math.floor(Date.now() / 1000) } = options;
  const { id, timestamp, signature } = headers;
  const missing = [
    [WEBHOOK_ID_HEADER, id],
    [WEBHOOK_TIMESTAMP_HEADER, timestamp],
    [WEBHOOK_SIGNATURE_HEADER, signature],
  ].filter(([, value]) => value === undefined || value === '');
  if (missing.length > 0) {
    throw new WebhookVerificationError(`The push is not signed: missing ${missing.map(([name]) => name).join(', ')}`);
  }
  if (!TIMESTAMP.test(timestamp!)) {
    throw new WebhookVerificationError(`${WEBHOOK_TIMESTAMP_HEADER} must be unix seconds`);
  }
  const skew = nowSeconds - Number(timestamp);
  if (Math.abs(skew) > toleranceSeconds) {
    throw new WebhookVerificationError(
      `${WEBHOOK_TIMESTAMP_HEADER} is ${Math.abs(skew)} s ${skew > 0 ? 'old' : 'in the future'}; ` +
        `the tolerance is ±${toleranceSeconds} s (replayed push, or clocks out of sync)`,
    );
  }
  const candidates = signaturesOf(signature!);
  const expected = secrets.map((secret) => hmac(secret, id!, timestamp!, body));
  const matched = expected.some((mac) => candidates.some((candidate) => timingSafeEqual(mac, candidate)));
  if (!matched) {
    throw new WebhookVerificationError(`No ${SIGNATURE_VERSION} signature in ${WEBHOOK_SIGNATURE_HEADER} matches a known signing secret`);
  }
}

/** The `v1` signatures of the header that decode to an HMAC's length; others (other versions, junk) are ignored. */
function signaturesOf(header: string): Buffer[] {
  return header
    .split(' ')
    .map((entry) => entry.split(','))
    .filter((parts) => parts.length === 2 && parts[0] === SIGNATURE_VERSION && BASE64.test(parts[1]))
    .map(([, value]) => Buffer.from(value, 'base64'))
    .filter((mac) => mac.length === HMAC_BYTES);
}
