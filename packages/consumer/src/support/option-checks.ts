import { optionChecks } from '@mmmq/core';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';

/** The option checks shared by every package (core), throwing InvalidConsumerOptionsError. */
export const { positiveInteger, nonNegativeInteger, integerInRange, atMost, oneOf, plainObject, refuseUnknownFields } =
  optionChecks(InvalidConsumerOptionsError);
export { describeValue as describe } from '@mmmq/core';
