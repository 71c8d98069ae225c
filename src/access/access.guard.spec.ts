import { Controller, Get, Module, Post, type Type } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import { OrgSession, Public } from '../common/access/access.decorators';
import { AccessGuard } from './access.guard';
import { AccessService } from './access.service';

/**
 * AccessGuard reads every route's declarations when the application starts: a page of the admin
 * pages that declares no role does not start, as a Federation route without its rate limit does
 * not (route-access.ts). The guard decides nothing at start-up, so AccessService is not built.
 */
async function start(controller: Type<unknown>): Promise<void> {
  @Module({
    imports: [DiscoveryModule],
    controllers: [controller],
    providers: [AccessGuard, { provide: AccessService, useValue: {} }],
  })
  class PagesModule {}
  const app = await NestFactory.create(PagesModule, { logger: false, abortOnError: false });
  try {
    await app.init();
  } finally {
    await app.close();
  }
}

describe('AccessGuard at start-up', () => {
  it("an organisation's page whose handler forgot its role does not start", async () => {
    @Controller('org/:slug/things')
    class ThingsPages {
      @Get()
      @OrgSession('viewer')
      list() {}

      @Post(':id/delete')
      remove() {}
    }
    await expect(start(ThingsPages)).rejects.toThrow(
      "ThingsPages.remove: an organisation's page needs its role: @OrgView(), @OrgDownload() or @OrgAction(role, back)",
    );
  });

  it('nor one left public by its controller, as the pages used to be', async () => {
    @Controller('org/:slug/things')
    @Public()
    class ThingsPages {
      @Get()
      list() {}
    }
    await expect(start(ThingsPages)).rejects.toThrow(
      "ThingsPages.list: an organisation's page needs its role",
    );
  });

  it('a page of /org with no policy at all does not start either', async () => {
    @Controller('org')
    class SessionPages {
      @Get('sign-in')
      form() {}
    }
    await expect(start(SessionPages)).rejects.toThrow(
      'SessionPages.form: a page of /org needs a policy (@Public() to sign in and out)',
    );
  });

  it('pages that declare their roles, and a public sign-in, start', async () => {
    @Controller('org/:slug/things')
    class ThingsPages {
      @Get()
      @OrgSession('viewer')
      list() {}

      @Post(':id/delete')
      @OrgSession('manager')
      remove() {}
    }
    @Controller('org')
    @Public()
    class SessionPages {
      @Get('sign-in')
      form() {}
    }
    await expect(start(ThingsPages)).resolves.toBeUndefined();
    await expect(start(SessionPages)).resolves.toBeUndefined();
  });
});
