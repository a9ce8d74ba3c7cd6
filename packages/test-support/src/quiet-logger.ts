import { inspect } from 'node:util';
import { LoggerService, LogLevel } from '@nestjs/common';
import { QUIET_LOG_SINK, type QuietLogSink } from './quiet-log-sink';

/**
 * A Nest logger that keeps each line for the quiet test environment, which prints a test's lines only if it fails.
 * Outside that environment (no sink installed) it writes to stderr like Nest's console logger.
 */
export class QuietLogger implements LoggerService {
  log(message: unknown, ...rest: unknown[]): void {
    this.keep('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.keep('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.keep('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.keep('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.keep('verbose', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.keep('fatal', message, rest);
  }

  private keep(level: LogLevel, message: unknown, rest: unknown[]): void {
    // Nest passes the context last, after an optional stack.
    const context = rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const text = [message, ...rest].map((part) => (typeof part === 'string' ? part : inspect(part, { depth: 4 }))).join('\n');
    const line = `${level.toUpperCase()}${context ? ` [${context}]` : ''} ${text}`;
    const sink = (globalThis as Record<string, unknown>)[QUIET_LOG_SINK] as QuietLogSink | undefined;
    if (sink) sink(line);
    else process.stderr.write(line + '\n');
  }
}
