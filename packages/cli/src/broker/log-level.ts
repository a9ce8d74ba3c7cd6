import { InvalidBrokerOptionsError } from '@mmmq/broker';
import type { LogLevel } from '@nestjs/common';

/** How much the standalone broker logs: a level and every more severe one. */
export const LOG_LEVEL_VARIABLE = 'MMMQ_LOG_LEVEL';
/** From the most severe to the most talkative; each shows itself and everything before it. */
export const LOG_LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
export type BrokerLogLevel = (typeof LOG_LEVELS)[number];
/** Where it listens, what it restored, warnings and errors; `debug` adds Nest's route map and module lines. */
export const DEFAULT_LOG_LEVEL: BrokerLogLevel = 'log';

/** @throws InvalidBrokerOptionsError naming `MMMQ_LOG_LEVEL` when it is set to something else */
export function readLogLevel(env: NodeJS.ProcessEnv): BrokerLogLevel {
  const value = env[LOG_LEVEL_VARIABLE];
  if (value === undefined) return DEFAULT_LOG_LEVEL;
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as BrokerLogLevel;
  throw new InvalidBrokerOptionsError(`${LOG_LEVEL_VARIABLE} must be ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(value)}`);
}

/** Nest's levels `level` shows: `fatal`, then the list up to `level`. */
export function nestLogLevels(level: BrokerLogLevel): LogLevel[] {
  return ['fatal', ...LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(level) + 1)];
}
