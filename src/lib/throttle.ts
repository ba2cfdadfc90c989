import { asyncScheduler, throttleTime, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';

/**
 * At most `perSecond` values a second, the first at once and the latest of each window at
 * its end: a pointer that stops moving is always reported where it stopped.
 */
export function latestAtMost<T>(
  perSecond: number,
  scheduler: SchedulerLike = asyncScheduler,
): MonoTypeOperatorFunction<T> {
  return throttleTime<T>(1000 / perSecond, scheduler, { leading: true, trailing: true });
}
