import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Query,
  UseGuards,
  UseInterceptors,
  ValidationPipe,
} from '@nestjs/common';
import { IsString } from 'class-validator';
import { CurrentTenant, EmbedOrigin, Public } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { Pages } from '../common/pages/pages.decorator';
import fc from 'fast-check';
import {
  type LaneRequest,
  laneRoute,
  type LaneValidation,
  piping,
  resolveArgs,
} from './lane-route';

/** The global pipe's options (app.setup.ts) but its exception factory, and the pipe. */
const validation = (): LaneValidation => {
  const options = { whitelist: true, forbidNonWhitelisted: true, transform: true };
  return { pipe: new ValidationPipe(options), options };
};

/** What a lane reads of a route is the route's own declarations, or the start fails. */
class ReadQuery {
  @IsString() tenant: string;
}

@Controller('widgets/v1')
@EmbedOrigin()
@RateLimit('embed')
class Reads {
  @Get('things/:id')
  @HttpCode(203)
  @Header('Cache-Control', 'max-age=5')
  read(
    @CurrentTenant() tenant: unknown,
    @Param('id') id: string,
    @Query() query: ReadQuery,
  ): unknown {
    return { tenant, id, query };
  }

  @Post('things')
  write(@Body() body: ReadQuery): unknown {
    return body;
  }

  @Get('guarded')
  @UseGuards(class {})
  guarded(): unknown {
    return {};
  }

  @Get('piped/:id')
  piped(@Param('id', ParseIntPipe) id: number): unknown {
    return { id };
  }

  @Get('intercepted')
  @UseInterceptors(class {})
  intercepted(): unknown {
    return {};
  }
}

@Controller('/pages/')
@Public()
@Pages()
class PageRoutes {
  @Get(':code')
  follow(@Param('code') code: string): unknown {
    return code;
  }
}

const route = (controller: new () => object, name: string) => {
  const instance = new controller();
  const handler = (controller.prototype as Record<string, (...args: unknown[]) => unknown>)[name];
  return laneRoute(controller, instance, handler);
};

describe('laneRoute', () => {
  it('reads the path, status, headers, access and rate limits of the route', () => {
    const read = route(Reads, 'read');
    expect(read.pattern).toBe('/widgets/v1/things/:id');
    expect(read.segments).toEqual(['widgets', 'v1', 'things', { param: 'id' }]);
    expect(read.status).toBe(203);
    expect(read.headers).toEqual(['Cache-Control', 'max-age=5']);
    expect(read.access).toEqual({ policy: { kind: 'embed-origin' }, limits: ['embed'] });
    expect(read.pages).toBe(false);
    const page = route(PageRoutes, 'follow');
    expect(page.pattern).toBe('/pages/:code');
    expect(page.pages).toBe(true);
    expect(page.access).toEqual({ policy: { kind: 'public' }, limits: [] });
  });

  it('resolves the arguments as Nest does: parameters and the query DTO through the pipe', async () => {
    const read = route(Reads, 'read');
    const pipe = validation();
    const req: LaneRequest = {
      method: 'GET',
      url: '/widgets/v1/things/7?tenant=acme',
      headers: {},
      params: { id: '7' },
      query: { tenant: 'acme' },
      ip: '203.0.113.1',
    };
    const args: unknown[] = [];
    await resolveArgs(read, req, pipe, false, args);
    expect(args[1]).toBe('7');
    expect(args[2]).toBeInstanceOf(ReadQuery);
    expect(args[2]).toEqual({ tenant: 'acme' });
    expect(args[0]).toBeUndefined(); // @CurrentTenant() waits for access
    req.tenant = { id: 'org_acme' } as never;
    await resolveArgs(read, req, pipe, true, args);
    expect(args[0]).toEqual({ id: 'org_acme' });
    // The DTO of a query string is kept, frozen: the same string again is not validated again.
    const again: unknown[] = [];
    expect(resolveArgs(read, req, pipe, false, again)).toBeUndefined();
    expect(again[2]).toBe(args[2]);
    expect(Object.isFrozen(again[2])).toBe(true);
    // A query the DTO refuses is refused on the lane as in the pipeline, and not kept.
    const twice = {
      ...req,
      url: '/widgets/v1/things/7?tenant=a&tenant=b',
      query: { tenant: ['a', 'b'] },
    };
    await expect(resolveArgs(read, twice, pipe, false, [])).rejects.toThrow();
    await expect(resolveArgs(read, twice, pipe, false, [])).rejects.toThrow();
  });

  it.each([
    ['write', /not a GET route/],
    ['guarded', /@UseGuards\(\) of its own/],
    ['piped', /argument 0 has pipes of its own/],
    ['intercepted', /an interceptor of its own/],
  ])('refuses %s: a lane could not answer it as the pipeline does', (name, why) => {
    expect(() => route(Reads, name)).toThrow(why);
  });

  it('answers a value the pipe does not validate as the pipe itself does, without a promise', async () => {
    const { pipe, options } = validation();
    const metatypes = [String, Number, Boolean, Array, Object, Date, Buffer, undefined];
    const value = fc.oneof(
      fc.constant(undefined),
      fc.string(),
      fc.constantFrom('true', 'false', '', '1', '01', '-0', 'NaN', ' 2 '),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('param', 'query', 'custom' as const),
        fc.constantFrom(...metatypes),
        fc.constantFrom('id', undefined),
        value,
        async (type, metatype, data, input) => {
          const metadata = { type, metatype, data };
          // What each answers, or that it refused (the lane at once, the pipe in its promise).
          const outcome = async (run: () => unknown) => {
            try {
              return { value: await run() };
            } catch (error) {
              return { refused: String(error) };
            }
          };
          const lane = await outcome(() => {
            const now = piping({ pipe, options }, metadata)(input);
            expect(now).not.toBeInstanceOf(Promise);
            return now;
          });
          expect(lane).toStrictEqual(await outcome(() => pipe.transform(input, metadata)));
        },
      ),
      { numRuns: 500 },
    );
    // A DTO goes to the pipe itself; so does everything under options that change the rule.
    const dto = piping({ pipe, options }, { type: 'query', metatype: ReadQuery })({ tenant: 'a' });
    expect(dto).toBeInstanceOf(Promise);
    await expect(dto).resolves.toBeInstanceOf(ReadQuery);
    const strict = { pipe, options: { ...options, validateCustomDecorators: true } };
    const custom = piping(strict, { type: 'custom', metatype: String })('x');
    expect(custom).toBeInstanceOf(Promise);
    await expect(custom).resolves.toBe('x');
  });
});
