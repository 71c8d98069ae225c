import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * src/ imports Nest only from its packages' roots (eslint.config.mjs, `nestInternals`): deliberate
 * imports of internal paths, linted with the repository's own config as if they were the files
 * named, fail with `no-restricted-imports`; the roots pass, and the rule on `IsOptional` beside it
 * still holds.
 */
const CASES: { filePath: string; code: string; refused: RegExp | null }[] = [
  {
    filePath: 'src/fast-lanes/lane-route.ts',
    code: "import { RouteParamsFactory } from '@nestjs/core/router/route-params-factory';\nexport const x = RouteParamsFactory;\n",
    refused: /@nestjs\/core\/router\/route-params-factory.*Nest's internals/,
  },
  {
    filePath: 'src/fast-lanes/lane-route.ts',
    code: "import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';\nexport const x = ExecutionContextHost;\n",
    refused: /execution-context-host/,
  },
  {
    filePath: 'src/common/http/no-body.interceptor.ts',
    code: "import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';\nexport const x = RouteParamtypes;\n",
    refused: /route-paramtypes\.enum/,
  },
  {
    filePath: 'src/config/app-config.ts',
    code: "import { PATH_METADATA } from '@nestjs/common/constants';\nexport const x = PATH_METADATA;\n",
    refused: /@nestjs\/common\/constants/,
  },
  {
    filePath: 'src/common/http/html-openapi.ts',
    code: "import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';\nexport type X = SchemaObject;\n",
    refused: /@nestjs\/swagger\/dist/,
  },
  {
    filePath: 'src/members/dto/upsert-user.dto.ts',
    code: "import { IsOptional } from 'class-validator';\nexport const x = IsOptional;\n",
    refused: /Optional\(\) from src\/common\/validation\/optional/,
  },
  {
    filePath: 'src/fast-lanes/fast-lanes.ts',
    code:
      "import { Injectable } from '@nestjs/common';\n" +
      "import { DiscoveryService, Reflector } from '@nestjs/core';\n" +
      "import { ApiTags } from '@nestjs/swagger';\n" +
      'export const x = [Injectable, DiscoveryService, Reflector, ApiTags];\n',
    refused: null,
  },
];

describe("Nest's internal paths in lint", () => {
  let results: { filePath: string; messages: { ruleId: string | null; message: string }[] }[];

  beforeAll(() => {
    const root = resolve(__dirname, '../..');
    const input = JSON.stringify(CASES.map(({ filePath, code }) => ({ filePath, code })));
    const output = execFileSync(process.execPath, [resolve(__dirname, 'lint-text.mjs')], {
      cwd: root,
      input,
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    results = JSON.parse(output) as typeof results;
  }, 300_000);

  it.each(CASES.map((c, i) => [c.filePath, c.code.split('\n')[0], i] as const))(
    '%s: %s',
    (_file, _line, i) => {
      const errors = results[i].messages
        .filter((m) => m.ruleId === 'no-restricted-imports')
        .map((m) => m.message);
      const { refused } = CASES[i];
      if (refused === null) expect(errors).toEqual([]);
      else {
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatch(refused);
      }
    },
  );
});
