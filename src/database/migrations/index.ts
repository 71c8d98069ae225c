import { Init1795257744951 } from './1795257744951-Init';

/** Every migration in order; listed so the app, CLI and tests need no file globbing. */
export const MIGRATIONS = [Init1795257744951];
