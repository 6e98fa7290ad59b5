import { catchError, defaultIfEmpty, defer, map, mergeMap, Observable, OperatorFunction, of, SchedulerLike, take, timeout } from 'rxjs';

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
 * answers costs one slot for `timeoutMs`, not the pipeline. Emits one outcome per item.
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
    return defer(() => deliver(item, controller.signal)).pipe(
      defaultIfEmpty(undefined),
      take(1),
      timeout({ first: options.timeoutMs, ...(options.scheduler ? { scheduler: options.scheduler } : {}) }),
      map((): Delivery<N> => ({ kind: 'delivered', item })),
      catchError((error: unknown) => {
        controller.abort(error);
        return of<Delivery<N>>({ kind: 'failed', item, error });
      }),
    );
  }, options.concurrency);
}
