import { InvalidBrokerOptionsError } from '@mmmq/broker';
import { ConsoleLogger, Logger } from '@nestjs/common';

/** `text` (Nest's console lines) or `json` (one JSON object a line, for log collectors). */
export const LOG_FORMAT_VARIABLE = 'MMMQ_LOG_FORMAT';
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
/** What people read in a terminal; collectors ask for `json`. */
export const DEFAULT_LOG_FORMAT: LogFormat = 'text';

/** @throws InvalidBrokerOptionsError naming `MMMQ_LOG_FORMAT` when it is set to something else */
export function readLogFormat(env: NodeJS.ProcessEnv): LogFormat {
  const value = env[LOG_FORMAT_VARIABLE];
  if (value === undefined) return DEFAULT_LOG_FORMAT;
  if ((LOG_FORMATS as readonly string[]).includes(value)) return value as LogFormat;
  throw new InvalidBrokerOptionsError(`${LOG_FORMAT_VARIABLE} must be ${LOG_FORMATS.join(' or ')}, got ${JSON.stringify(value)}`);
}

/**
 * Nest's console logger in the chosen format: with `json`, each record is one line
 * `{"level","pid","timestamp","message","context"?,"stack"?}` (Nest's own JSON mode, compact, no colours).
 */
export function brokerLogger(format: LogFormat): ConsoleLogger {
  return new ConsoleLogger(format === 'json' ? { json: true } : {});
}

/**
 * Reads `MMMQ_LOG_FORMAT` and makes every logger of the process (`new Logger(context)`, the application's) use it.
 * Called first, so that even a configuration error is logged in the chosen format.
 */
export function applyLogFormat(env: NodeJS.ProcessEnv): void {
  Logger.overrideLogger(brokerLogger(readLogFormat(env)));
}
