/** The admin web console at `/mmmq/console` (docs/operations.md#console). */
export interface ConsoleOptions {
  /**
   * False: `/mmmq/console` answers 404. Default true; with tokens configured it is served only while at least one
   * has the `admin` role, and its pages then ask for such a token.
   */
  enabled?: boolean;
}

/** Console settings after defaults are applied and validation passed. */
export interface ResolvedConsoleOptions {
  enabled: boolean;
}

export const MMMQ_CONSOLE_OPTIONS = Symbol('MMMQ_CONSOLE_OPTIONS');
