/** How a client (producer, consumer) connects to a broker over TLS (`https://`, `mmmqs://`). */
export interface TlsClientOptions {
  /**
   * PEM certificates to trust besides Node's default ones: a private CA, or a self-signed broker certificate.
   * Default: Node's trusted CAs only.
   */
  ca?: string | Buffer | Array<string | Buffer>;
}

const TLS_CLIENT_FIELDS: ReadonlySet<string> = new Set<keyof TlsClientOptions>(['ca']);

/**
 * Checks a `tls` client option; `name` is how the option is called in the message.
 *
 * @returns why the value is unusable, or undefined when it is fine
 */
export function explainInvalidTlsClientOptions(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${name} must be an object { ca? }`;
  const unknown = Object.keys(value).find((key) => !TLS_CLIENT_FIELDS.has(key));
  if (unknown !== undefined) return `Unknown option ${name}.${unknown}; the only one is ${name}.ca`;
  const { ca } = value as TlsClientOptions;
  const isPem = (item: unknown) => typeof item === 'string' || Buffer.isBuffer(item);
  if (ca !== undefined && !isPem(ca) && !(Array.isArray(ca) && ca.every(isPem))) {
    return `${name}.ca must be PEM text or a Buffer, or an array of them`;
  }
  return undefined;
}
