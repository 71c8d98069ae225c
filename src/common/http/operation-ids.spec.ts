import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { operationId, PUBLISHED_CONTROLLER_NAMES } from './operation-ids';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('operation ids', () => {
  it('keeps the published id of a renamed controller, and the default for the others', () => {
    expect(operationId('MembersController', 'upsert')).toBe('UsersController_upsert');
    expect(operationId('LeadsController', 'create')).toBe('LeadsController_create');
  });

  it('names only controllers that exist under their new name, and no published name twice', () => {
    const code = sources(join(__dirname, '../..')).map((path) => readFileSync(path, 'utf8'));
    for (const [current, published] of Object.entries(PUBLISHED_CONTROLLER_NAMES)) {
      expect([current, code.some((text) => text.includes(`export class ${current} `))]).toEqual([
        current,
        true,
      ]);
      expect([published, code.some((text) => text.includes(`export class ${published} `))]).toEqual(
        [published, false],
      );
    }
    const published = Object.values(PUBLISHED_CONTROLLER_NAMES);
    expect(new Set(published).size).toBe(published.length);
  });
});
