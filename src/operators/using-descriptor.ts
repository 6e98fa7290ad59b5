import { defer, finalize, type Observable } from 'rxjs';

export interface Closable {
  close(): void;
}

/**
 * Acquires a descriptor per subscription and closes it exactly once on every ending: completion, error,
 * unsubscription before or during start. `use` may close it earlier itself (once a spawned child holds
 * its own reference): the close passed to it is the same idempotent one.
 *
 * @example
 * usingDescriptor(() => bindDirectory(path), (dir, close) => spawn$(dir).pipe(tap(() => close())));
 */
export function usingDescriptor<R extends Closable, T>(
  acquire: () => R,
  use: (resource: R, close: () => void) => Observable<T>,
): Observable<T> {
  return defer(() => {
    const resource = acquire();
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      resource.close();
    };
    let inner: Observable<T>;
    try {
      inner = use(resource, close);
    } catch (err) {
      close();
      throw err;
    }
    return inner.pipe(finalize(close));
  });
}
