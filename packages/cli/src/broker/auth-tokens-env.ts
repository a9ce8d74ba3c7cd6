import { readFileSync } from 'node:fs';
import { AuthTokenOptions, InvalidBrokerOptionsError } from '@mmmq/broker';
import { resolveAuthTokens } from '@mmmq/broker/internal';

/** Inline JSON array of `{ token, roles, topics?, consumers?, name? }`. */
export const AUTH_TOKENS_VARIABLE = 'MMMQ_AUTH_TOKENS';
/** Path of a file holding that JSON array; a file keeps the tokens out of the process environment. */
export const AUTH_TOKENS_FILE_VARIABLE = 'MMMQ_AUTH_TOKENS_FILE';

/**
 * The tokens of `MMMQ_AUTH_TOKENS` or of the file `MMMQ_AUTH_TOKENS_FILE` names (not both), checked as
 * `auth.tokens` would be but naming the variable; none when neither is set. No error quotes a token.
 *
 * @throws InvalidBrokerOptionsError
 */
export function readAuthTokens(env: NodeJS.ProcessEnv): AuthTokenOptions[] {
  const inline = env[AUTH_TOKENS_VARIABLE];
  const file = env[AUTH_TOKENS_FILE_VARIABLE];
  if (inline !== undefined && file !== undefined) {
    throw new InvalidBrokerOptionsError(`Set ${AUTH_TOKENS_VARIABLE} or ${AUTH_TOKENS_FILE_VARIABLE}, not both`);
  }
  if (file !== undefined) return parse(readTokensFile(file), `${AUTH_TOKENS_FILE_VARIABLE} (${file})`);
  if (inline !== undefined) return parse(inline, AUTH_TOKENS_VARIABLE);
  return [];
}

function readTokensFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new InvalidBrokerOptionsError(`${AUTH_TOKENS_FILE_VARIABLE} names a file that cannot be read: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function parse(text: string, source: string): AuthTokenOptions[] {
  let tokens: unknown;
  try {
    tokens = JSON.parse(text);
  } catch (error) {
    // The parser's own message may quote the text around the mistake, which is full of tokens.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new InvalidBrokerOptionsError(
      `${source} is not valid JSON${position === undefined ? '' : ` (at position ${position})`}; expected an array of ` +
        '{ "token", "roles", "topics"?, "consumers"?, "name"? }',
    );
  }
  resolveAuthTokens(tokens, source);
  return tokens as AuthTokenOptions[];
}
