import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * The module boundaries of docs/architecture.md are a lint error: deliberate violations, linted
 * with the repository's own ESLint config (eslint.config.mjs, type information included) as if
 * they were the files named, fail with `boundaries/dependencies`; the allowed imports beside them
 * pass. Without this, a config that resolves no import would check nothing and pass everything.
 */
interface Case {
  name: string;
  filePath: string;
  code: string;
  /** The imported file the boundaries rule names, or null when the import is allowed. */
  refused: string | null;
}

const CASES: Case[] = [
  {
    name: 'common/ importing a feature',
    filePath: 'src/common/ids.ts',
    code: "import { TenantsService } from '../tenants/tenants.service';\nexport const x = TenantsService;\n",
    refused: 'feature tenants file tenants.service.ts',
  },
  {
    name: "common/ importing a feature's entity, types only",
    filePath: 'src/common/errors/problem.filter.ts',
    code: "import type { TenantEntity } from '../../tenants/tenant.entity';\nexport type X = TenantEntity;\n",
    refused: 'feature tenants file tenant.entity.ts',
  },
  {
    name: 'config/ importing a feature',
    filePath: 'src/config/app-config.ts',
    code: "import { MembersService } from '../members/members.service';\nexport const x = MembersService;\n",
    refused: 'feature members file members.service.ts',
  },
  {
    name: 'the page frame (pages/) importing a feature',
    filePath: 'src/pages/layout.tsx',
    code: "import type { ConsoleCtx } from '../console/org-page';\nexport type X = ConsoleCtx;\n",
    refused: 'feature console file org-page.ts',
  },
  {
    name: 'common/ importing the page frame',
    filePath: 'src/common/pages/layout.tsx',
    code: "import { DataTable } from '../../pages/layout';\nexport const x = DataTable;\n",
    refused: 'frame pages file layout.tsx',
  },
  {
    name: "a feature importing another feature's repository",
    filePath: 'src/embed/embed-data.service.ts',
    code: "import type { TreeMember } from '../members/members.repository';\nexport type X = TreeMember;\n",
    refused: 'feature members file members.repository.ts',
  },
  {
    name: "a feature importing another feature's controller",
    filePath: 'src/bans/bans.service.ts',
    code: "import { ShortLinkController } from '../deeplinks/short-link.controller';\nexport const x = ShortLinkController;\n",
    refused: 'feature deeplinks file short-link.controller.ts',
  },
  {
    name: "a feature importing another feature's internal helper",
    filePath: 'src/demo/demo-builder.service.ts',
    code: "import { ClickCounter } from '../deeplinks/click-counter';\nexport const x = ClickCounter;\n",
    refused: 'feature deeplinks file click-counter.ts',
  },
  {
    name: "a feature importing another feature's module, service, DTO and error",
    filePath: 'src/embed/embed-data.service.ts',
    code:
      "import { MembersModule } from '../members/members.module';\n" +
      "import { MembersService } from '../members/members.service';\n" +
      "import { UpsertUserDto } from '../members/dto/upsert-user.dto';\n" +
      "import { MemberNotFoundError } from '../members/member.errors';\n" +
      'export const x = [MembersModule, MembersService, UpsertUserDto, MemberNotFoundError];\n',
    refused: null,
  },
  {
    name: 'a feature importing the page frame, and the frame importing shared code',
    filePath: 'src/console/console-page.tsx',
    code:
      "import { framedPage } from '../pages/layout';\n" +
      "import { HtmlPage } from '../common/pages/page';\n" +
      'export const x = [framedPage, HtmlPage];\n',
    refused: null,
  },
  {
    name: 'a feature importing its own repository and shared code',
    filePath: 'src/members/members.service.ts',
    code:
      "import { MembersRepository } from './members.repository';\n" +
      "import { TransactionHost } from '../database/transaction-host';\n" +
      'export const x = [MembersRepository, TransactionHost];\n',
    refused: null,
  },
];

interface Linted {
  filePath: string;
  messages: { ruleId: string | null; message: string }[];
}

describe('module boundaries in lint', () => {
  let results: Linted[];

  beforeAll(() => {
    const root = resolve(__dirname, '../..');
    const input = JSON.stringify(CASES.map(({ filePath, code }) => ({ filePath, code })));
    const output = execFileSync(process.execPath, [resolve(__dirname, 'lint-text.mjs')], {
      cwd: root,
      input,
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    results = JSON.parse(output) as Linted[];
  }, 300_000);

  it.each(CASES.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
    const { refused } = CASES[i];
    const errors = results[i].messages
      .filter((m) => m.ruleId === 'boundaries/dependencies')
      .map((m) => m.message);
    if (refused === null) {
      expect(errors).toEqual([]);
    } else {
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain(`may not import ${refused}`);
    }
  });
});
