// Operator commands, so a newcomer can start without curl:
//   npm run cli -- tenant:create --slug acme --name "Acme" --origin https://acme.example
// Prints the created tenant, with its first key, as JSON on stdout.
//   npm run cli -- demo:seed
// Seeds the demo tenant (not in production) and prints where its page is, as JSON on stdout.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { AppModule } from './app.module';
import { AppConfig } from './config/app-config';
import { ConfigError, loadConfig } from './config/load-config';
import { prepareDatabase } from './main';
import { TenantsService } from './tenants/tenants.service';
import { CreateTenantDto } from './tenants/dto/create-tenant.dto';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { flattenValidationErrors } from './common/errors/validation';
import { bodyProblem } from './common/http/hostile-input';
import { IMPORT_USAGE, parseImportArgs, runImportCommand } from './transfer/import-cli';
import { DemoSeeder } from './demo/demo-seeder.service';

const USAGE = `Usage:
  npm run cli -- tenant:create --slug <slug> --name <display name> --origin <https://origin> [--origin …]
                               [--currency RUB] [--locale ru-RU|en-US|de-DE|…] [--link-domain host …]
${IMPORT_USAGE}
  npm run cli -- demo:seed                 (the demo tenant and /demo; not with NODE_ENV=production)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'import') return importCommand(rest);
  if (command === 'demo:seed' && rest.length === 0) return demoSeedCommand();
  if (command !== 'tenant:create') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      slug: { type: 'string' },
      name: { type: 'string' },
      origin: { type: 'string', multiple: true },
      currency: { type: 'string' },
      locale: { type: 'string' },
      'link-domain': { type: 'string', multiple: true },
    },
    strict: true,
  });
  const dto = plainToInstance(CreateTenantDto, {
    slug: values.slug,
    display_name: values.name,
    allowed_origins: values.origin ?? [],
    currency: values.currency,
    locale: values.locale,
    link_domains: values['link-domain'],
  });
  // The same text rules as the HTTP surfaces (control characters, unpaired surrogates).
  const hostile = bodyProblem({ ...dto });
  const errors = hostile
    ? [hostile]
    : flattenValidationErrors(validateSync(dto, { whitelist: true }));
  if (errors.length) {
    for (const e of errors) process.stderr.write(`${flagOf(e.field)}: ${e.message}\n`);
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }

  const app = await cliApp();
  try {
    const created = await app.get(TenantsService).create(dto, { type: 'platform', name: 'cli' });
    process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
    return 0;
  } finally {
    await app.close();
  }
}

/** `import --tenant <slug> FILE` (docs/import-export.md). */
async function importCommand(args: string[]): Promise<number> {
  const command = parseImportArgs(args);
  if (typeof command === 'string') {
    process.stderr.write(`${command}\n${USAGE}\n`);
    return 2;
  }
  const app = await cliApp();
  try {
    return await runImportCommand(app, command);
  } finally {
    await app.close();
  }
}

/** `demo:seed`: the demo tenant, seeded now or brought up to date (docs/embedding.md, 11.7). */
async function demoSeedCommand(): Promise<number> {
  const app = await cliApp();
  try {
    // DemoModule is a development module: under NODE_ENV=production it is not there.
    if (app.get(AppConfig).isProduction) {
      process.stderr.write('demo:seed: there is no demo with NODE_ENV=production\n');
      return 2;
    }
    const demo = await app.get(DemoSeeder).ensureDemo();
    process.stdout.write(`${JSON.stringify(demo, null, 2)}\n`);
    return 0;
  } finally {
    await app.close();
  }
}

/** The application without HTTP, queue consumers or timers, on a migrated database. */
async function cliApp() {
  const config = loadConfig(process.env, {
    onGeneratedSecrets: (secrets, file) =>
      process.stderr.write(
        `Generated development secrets ${Object.keys(secrets).join(', ')} in ${file}\n`,
      ),
  });
  await prepareDatabase(config, (message) => process.stderr.write(`${message}\n`));
  // The CLI acts and leaves: it must not start queue consumers or schedule jobs like a worker.
  const cliConfig = new AppConfig({ ...config, processRole: 'api' });
  return NestFactory.createApplicationContext(AppModule.forRoot(cliConfig), { logger: false });
}

/** The command-line flag behind a DTO field, for error messages. */
function flagOf(field: string): string {
  const flags: Record<string, string> = {
    slug: '--slug',
    display_name: '--name',
    allowed_origins: '--origin',
    currency: '--currency',
    locale: '--locale',
    link_domains: '--link-domain',
  };
  const [head, ...rest] = field.split('.');
  return [flags[head] ?? `--${head}`, ...rest].join('.');
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message =
      error instanceof ConfigError || (error as { code?: string }).code
        ? (error as Error).message
        : error instanceof Error
          ? (error.stack ?? error.message)
          : String(error);
    process.stderr.write(`${message}\n`);
    process.exit(1);
  },
);
