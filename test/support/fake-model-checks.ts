import { afterAll, afterEach } from 'vitest';
import { checkStartedFakes } from './fake-model';

/**
 * A setup file of every vitest config (run before each test file): after every test, every fake
 * model started (test/support/fake-model.ts) checks itself, so a reply function that threw, a
 * request beyond the script or a route's limit, or a scripted reply never requested fails the test
 * that owns it, whether or not the test calls `assertDone()`. After the file's own `afterAll`
 * hooks, the fakes are checked once more (what happened while they stopped) and forgotten.
 *
 * Hooks, not the fakes' owners: a harness or CLI fixture made in a `beforeAll` cannot add an
 * `afterEach` of its own (vitest has collected the file's hooks by then).
 */
afterEach(() => checkStartedFakes());
afterAll(() => checkStartedFakes());
