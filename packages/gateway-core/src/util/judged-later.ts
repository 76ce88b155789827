/**
 * Started now, judged later: the rejection of `promise` is marked as handled,
 * so it is not reported as unhandled while the caller does other work first;
 * awaiting the promise later still throws it. For work sent early to share a
 * store round trip whose result only counts after another check.
 */
export function judgedLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
