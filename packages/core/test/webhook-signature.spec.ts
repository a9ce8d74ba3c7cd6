import { inspect } from 'node:util';
import {
  DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
  InvalidSigningSecretError,
  SIGNING_SECRET_MAX_BYTES,
  SIGNING_SECRET_MIN_BYTES,
  SigningSecret,
  verifyWebhook,
  WebhookHeaders,
  WebhookVerificationError,
} from '../src/webhook-signature';

// The reference vector of Standard Webhooks (standard-webhooks/standard-webhooks, libraries/go/webhook_test.go,
// TestWebhookSign), which every SDK of the specification reproduces.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const secretOf = (bytes: number, fill = 7) => `whsec_${Buffer.alloc(bytes, fill).toString('base64')}`;

describe('SigningSecret', () => {
  it('signs the Standard Webhooks reference vector', () => {
    const secret = SigningSecret.parse(VECTOR.secret);
    expect(secret.sign(VECTOR.id, VECTOR.timestamp, Buffer.from(VECTOR.body))).toBe(VECTOR.signature);
  });

  it.each([SIGNING_SECRET_MIN_BYTES, 32, SIGNING_SECRET_MAX_BYTES])('accepts a key of %i bytes', (bytes) => {
    expect(SigningSecret.parse(secretOf(bytes)).reveal()).toBe(secretOf(bytes));
  });

  it.each([
    ['a key that is too short', secretOf(SIGNING_SECRET_MIN_BYTES - 1), 'it holds 23 bytes'],
    ['a key that is too long', secretOf(SIGNING_SECRET_MAX_BYTES + 1), 'it holds 65 bytes'],
    ['no prefix', Buffer.alloc(32, 7).toString('base64'), 'must be a string: "whsec_"'],
    ['another prefix', `whsk_${Buffer.alloc(32, 7).toString('base64')}`, 'must be a string'],
    ['nothing after the prefix', 'whsec_', 'is not base64'],
    ['base64url instead of base64', `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`, 'is not base64'],
    ['broken padding', `whsec_${Buffer.alloc(32, 7).toString('base64')}=`, 'is not base64'],
    ['spaces', `whsec_ ${Buffer.alloc(32, 7).toString('base64')}`, 'is not base64'],
    ['a number', 12345, 'must be a string'],
    ['nothing', undefined, 'must be a string'],
  ])('refuses %s, naming the field but never quoting the value', (_, input, message) => {
    const attempt = () => SigningSecret.parse(input, 'dispatcher signingSecret');
    expect(attempt).toThrow(InvalidSigningSecretError);
    expect(attempt).toThrow(message);
    expect(attempt).toThrow(/^dispatcher signingSecret must be/);
    if (typeof input === 'string' && input.length > 6) {
      try {
        attempt();
      } catch (error) {
        expect((error as Error).message).not.toContain(input.slice(6, 20));
      }
    }
  });

  it('never shows its text in JSON, string conversion or util.inspect', () => {
    const secret = SigningSecret.parse(VECTOR.secret);
    const key = VECTOR.secret.slice('whsec_'.length);
    for (const shown of [JSON.stringify({ secret }), String(secret), `${secret}`, inspect({ secret }, { showHidden: true, depth: 5 })]) {
      expect(shown).not.toContain(key);
      expect(shown).toContain('redacted');
    }
  });

  it('compares secrets by key', () => {
    expect(SigningSecret.parse(secretOf(32)).equals(SigningSecret.parse(secretOf(32)))).toBe(true);
    expect(SigningSecret.parse(secretOf(32)).equals(SigningSecret.parse(secretOf(32, 8)))).toBe(false);
    expect(SigningSecret.parse(secretOf(32)).equals(SigningSecret.parse(secretOf(33)))).toBe(false);
  });

  it('generates valid secrets of 32 random bytes', () => {
    const one = SigningSecret.generate();
    const other = SigningSecret.generate();
    expect(one.reveal()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(one.reveal().slice(6), 'base64')).toHaveLength(32);
    expect(one.equals(other)).toBe(false);
  });
});

describe('verifyWebhook', () => {
  const secret = SigningSecret.parse(VECTOR.secret);
  const body = Buffer.from(VECTOR.body);
  const headers = (overrides: Partial<WebhookHeaders> = {}): WebhookHeaders => ({
    id: VECTOR.id,
    timestamp: String(VECTOR.timestamp),
    signature: VECTOR.signature,
    ...overrides,
  });
  const at = { nowSeconds: VECTOR.timestamp };
  const refused = (run: () => void, message: string | RegExp) => {
    expect(run).toThrow(WebhookVerificationError);
    expect(run).toThrow(message);
  };

  it('accepts the reference vector at its own time', () => {
    expect(() => verifyWebhook([secret], headers(), body, at)).not.toThrow();
  });

  it('accepts when any secret matches any v1 signature of the header (rotation, several signatures)', () => {
    const other = SigningSecret.parse(secretOf(32));
    const junk = 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=';
    const signature = [junk, junk.replace('v1', 'v2'), 'v1', 'v1,not base64!', VECTOR.signature, junk].join(' ');
    expect(() => verifyWebhook([other, secret], headers({ signature }), body, at)).not.toThrow();
    refused(() => verifyWebhook([other], headers({ signature }), body, at), 'No v1 signature in webhook-signature matches');
  });

  it.each([
    ['webhook-id', { id: undefined }],
    ['webhook-timestamp', { timestamp: undefined }],
    ['webhook-signature', { signature: undefined }],
    ['webhook-signature', { signature: '' }],
  ])('refuses a push without %s', (name, overrides) => {
    refused(() => verifyWebhook([secret], headers(overrides), body, at), `The push is not signed: missing ${name}`);
  });

  it.each([
    ['another body', headers(), Buffer.from('{"test": 2432232315}')],
    ['another id', headers({ id: 'msg_other' }), body],
    ['another signature', headers({ signature: 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=' }), body],
    ['the right signature as another version', headers({ signature: VECTOR.signature.replace('v1', 'v2') }), body],
    ['a truncated signature', headers({ signature: VECTOR.signature.slice(0, -4) }), body],
  ])('refuses %s', (_, given, givenBody) => {
    refused(() => verifyWebhook([secret], given, givenBody, at), 'matches a known signing secret');
  });

  it('refuses a timestamp of another second (it is signed too)', () => {
    const timestamp = String(VECTOR.timestamp + 1);
    refused(() => verifyWebhook([secret], headers({ timestamp }), body, at), 'matches a known signing secret');
  });

  it(`accepts up to ±${DEFAULT_SIGNATURE_TOLERANCE_SECONDS} s of clock difference by default, and refuses beyond`, () => {
    const tolerance = DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
    expect(() => verifyWebhook([secret], headers(), body, { nowSeconds: VECTOR.timestamp + tolerance })).not.toThrow();
    expect(() => verifyWebhook([secret], headers(), body, { nowSeconds: VECTOR.timestamp - tolerance })).not.toThrow();
    refused(() => verifyWebhook([secret], headers(), body, { nowSeconds: VECTOR.timestamp + tolerance + 1 }), '301 s old');
    refused(() => verifyWebhook([secret], headers(), body, { nowSeconds: VECTOR.timestamp - tolerance - 1 }), '301 s in the future');
    refused(() => verifyWebhook([secret], headers(), body), /s old; the tolerance is ±300 s/);
  });

  it('takes another tolerance', () => {
    const options = { nowSeconds: VECTOR.timestamp + 11, toleranceSeconds: 10 };
    refused(() => verifyWebhook([secret], headers(), body, options), 'the tolerance is ±10 s');
  });

  it.each(['-1614265330', '1614265330.5', ' 1614265330', '1e9', '0x60', '9'.repeat(16)])('refuses the timestamp %p', (timestamp) => {
    refused(() => verifyWebhook([secret], headers({ timestamp }), body, at), 'webhook-timestamp must be unix seconds');
  });

  it('refuses everything when no secret is known', () => {
    refused(() => verifyWebhook([], headers(), body, at), 'matches a known signing secret');
  });
});
