import type { MessageHeaders } from '../message';

/**
 * A message selector (JMS's SQL-92 subset over message headers), parsed once and evaluated per message. A message
 * is selected only when the expression is TRUE: FALSE and UNKNOWN (a missing header, a type mismatch) both skip it.
 */
export interface Selector {
  /** The expression as given. */
  readonly text: string;
  matches(headers: Readonly<MessageHeaders>): boolean;
}
