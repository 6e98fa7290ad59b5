import {
  catchError,
  defaultIfEmpty,
  defer,
  finalize,
  map,
  mergeMap,
  type Observable,
  type OperatorFunction,
  of,
  type SchedulerLike,
  take,
  timeout,
} from 'rxjs';

export type Delivery<N> =
  | { readonly kind: 'delivered'; readonly item: N }
  | { readonly kind: 'failed'; readonly item: N; readonly error: unknown };

export interface DeliverOptions {
  /** Each delivery is abandoned after this long (its AbortSignal fires). */
  readonly timeoutMs: number;
  /** Deliveries under way at once; more wait in mergeMap's queue. */
  readonly concurrency: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * Delivers each item with `deliver`, each bounded in time, never failing the stream: a host that never
 * answers costs one slot for `timeoutMs`, not the pipeline. Emits one outcome per item. A delivery's signal
 * aborts when it times out or fails, and when the pipeline is unsubscribed before it settled.
 *
 * @example
 * exits$.pipe(deliverBounded((n, signal) => host.notify(n, signal), { timeoutMs: 5000, concurrency: 16 }))
 */
export function deliverBounded<N>(
  deliver: (item: N, signal: AbortSignal) => Observable<unknown> | PromiseLike<unknown>,
  options: DeliverOptions,
): OperatorFunction<N, Delivery<N>> {
  return mergeMap((item) => {
    const controller = new AbortController();
    let settled = false;
    return defer(() => deliver(item, controller.signal)).pipe(
      defaultIfEmpty(undefined),
      take(1),
      timeout({ first: options.timeoutMs, ...(options.scheduler ? { scheduler: options.scheduler } : {}) }),
      map((): Delivery<N> => {
        settled = true;
        return { kind: 'delivered', item };
      }),
      catchError((error: unknown) => {
        settled = true;
        controller.abort(error);
        return of<Delivery<N>>({ kind: 'failed', item, error });
      }),
      // Unsubscribed mid-delivery (the plugin closing): the host's call is told to stop, not left to run on
      // after dispose with nobody waiting for it.
      finalize(() => {
        if (!settled) controller.abort(new Error('delivery cancelled: the pipeline was closed'));
      }),
    );
  }, options.concurrency);
}
