import { arStats } from '../domain/catalogue/marketer-stats';
import { ar } from '../domain/catalogue/shared';

/**
 * Why the numbers did not load, from the answer's status (none: no answer at all), and a retry:
 * too many requests is said as such, so that the reader waits rather than presses again at once.
 */
export function LoadFailure({ status, retry }: { status?: number; retry: () => void }) {
  return (
    <div className="actions">
      <p className="message error" role="alert">
        {status === 429 ? ar.errorTooManyRequests : arStats.errorStats}
      </p>
      <button type="button" className="secondary" onClick={retry}>
        {arStats.buttonRetry}
      </button>
    </div>
  );
}
