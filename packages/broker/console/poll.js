// Polling for the pages whose numbers update by themselves.

/** Calls `poll` every `ms` (never two at once) until the returned function is called. */
export function every(ms, poll) {
  let stopped = false;
  let timer;
  const next = () => {
    timer = setTimeout(async () => {
      try {
        await poll();
      } catch (error) {
        if (stopped) return;
        throw error;
      }
      if (!stopped) next();
    }, ms);
  };
  next();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
