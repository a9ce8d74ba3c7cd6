import type { LoggerService } from '@nestjs/common';

/** Collects what the application logs, so a test can read the startup lines without printing them. */
export class CapturedLogger implements LoggerService {
  readonly lines: string[] = [];

  log(message: unknown): void {
    this.lines.push(String(message));
  }

  warn(message: unknown): void {
    this.lines.push(String(message));
  }

  error(message: unknown): void {
    this.lines.push(String(message));
  }
}
