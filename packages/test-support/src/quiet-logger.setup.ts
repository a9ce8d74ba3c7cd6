import { Logger } from '@nestjs/common';
// Not re-exported by the package's entry; @nestjs/testing installs it whenever a test module has no logger of its own.
import { TestingLogger } from '@nestjs/testing/services/testing-logger.service';
import { QuietLogger } from './quiet-logger';

/**
 * Jest `setupFilesAfterEnv`: before the test file loads, Nest's static logger (every `new Logger(context)`, every
 * application created without a `logger` option) writes to the quiet test environment's per-test buffer. Set once,
 * not per test: a test that passes its own logger (a `CapturedLogger` to assert on lines) keeps getting every line.
 * `Test.createTestingModule(…).compile()` without `setLogger` would install Nest's console `TestingLogger`; the quiet
 * logger takes its place.
 */
const quiet = new QuietLogger();
const overrideLogger = Logger.overrideLogger.bind(Logger);
Logger.overrideLogger = (logger: Parameters<typeof Logger.overrideLogger>[0]): void =>
  overrideLogger(logger instanceof TestingLogger ? quiet : logger);
Logger.overrideLogger(quiet);
