/** A batched push or a fetch stops growing past this many payload bytes (it always holds at least one message). */
export const PUSH_BATCH_MAX_BYTES = 1024 * 1024;
