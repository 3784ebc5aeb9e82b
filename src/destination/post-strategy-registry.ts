import type { PostStrategyModule } from './post-strategy-module.ts';
import type { PostStrategy } from './post-strategy.ts';
import { checkBeforeCreateStrategy } from './strategies/check-before-create-strategy.ts';
import { idempotencyKeyStrategy } from './strategies/idempotency-key-strategy.ts';
import { markBeforeSendStrategy } from './strategies/mark-before-send-strategy.ts';

/** Every post strategy's module by its name: a new strategy is a module here and a name in `PostStrategy`. */
const STRATEGIES: Readonly<Record<PostStrategy, PostStrategyModule>> = {
  'idempotency-key': idempotencyKeyStrategy,
  'check-before-create': checkBeforeCreateStrategy,
  'mark-before-send': markBeforeSendStrategy,
};

/**
 * The module of a post strategy (see `PostStrategyModule`).
 * @throws TypeError for a name that is no strategy (names are checked where a pipeline is
 *   defined and where `IDEM_DESTINATIONS` is read, so this means a bug).
 */
export function postStrategyOf(name: PostStrategy): PostStrategyModule {
  const strategy = Object.hasOwn(STRATEGIES, name) ? STRATEGIES[name] : undefined;
  if (!strategy) throw new TypeError(`unknown post strategy ${JSON.stringify(name)}`);
  return strategy;
}
