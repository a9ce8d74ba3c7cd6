/** PostgreSQL's identifier limit (NAMEDATALEN − 1). */
const MAX_IDENTIFIER_LENGTH = 63;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A schema or table name given in the options, checked and double-quoted for SQL text. Names are an allow-list,
 * never escaped: an option cannot smuggle SQL.
 *
 * @throws Error naming the option when `name` is not a plain identifier
 */
export function quoteIdentifier(option: string, name: string): string {
  if (typeof name !== 'string' || name.length > MAX_IDENTIFIER_LENGTH || !IDENTIFIER.test(name)) {
    throw new Error(
      `${option} must be a PostgreSQL identifier (letters, digits, _; at most ${MAX_IDENTIFIER_LENGTH}), got ${JSON.stringify(name)}`,
    );
  }
  return `"${name}"`;
}
