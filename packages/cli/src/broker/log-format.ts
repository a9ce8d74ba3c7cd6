import { InvalidBrokerOptionsError } from '@mmmq/broker';
import { ConsoleLogger, Logger } from '@nestjs/common';
import { BrokerConsoleLogger } from './broker-console-logger';
import { BrokerLogLevel, DEFAULT_LOG_LEVEL, nestLogLevels, readLogLevel } from './log-level';

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
 * Nest's console logger in the chosen format, showing `level` and what is more severe: with `json`, each record is
 * one line `{"level","pid","timestamp","message","context"?,"stack"?}` (Nest's own JSON mode, compact, no colours).
 */
export function brokerLogger(format: LogFormat, level: BrokerLogLevel = DEFAULT_LOG_LEVEL): ConsoleLogger {
  return new BrokerConsoleLogger({ ...(format === 'json' ? { json: true } : {}), logLevels: nestLogLevels(level) });
}

/**
 * Reads `MMMQ_LOG_FORMAT` and `MMMQ_LOG_LEVEL` and makes every logger of the process (`new Logger(context)`, the
 * application's) use them. Called first, so that even a configuration error is logged in the chosen format; an
 * invalid level is logged at the default one.
 */
export function applyLogFormat(env: NodeJS.ProcessEnv): void {
  const format = readLogFormat(env);
  Logger.overrideLogger(brokerLogger(format));
  Logger.overrideLogger(brokerLogger(format, readLogLevel(env)));
}
