/** The innermost cause's message: "EIO: i/o error, fsync" says more to a client than our wrapper does. */
export function describeCause(cause: unknown): string {
  let root = cause;
  for (;;) {
    if (root instanceof AggregateError && root.errors.length > 0) root = root.errors[0];
    else if (root instanceof Error && root.cause !== undefined) root = root.cause;
    else break;
  }
  return root instanceof Error ? root.message : String(root);
}
