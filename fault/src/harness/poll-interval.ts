/** How often the fault suite polls a condition: slower than the unit tests, so polling does not load the broker it measures. */
export const FAULT_POLL_MS = 100;
