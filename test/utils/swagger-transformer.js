// Runs the @nestjs/swagger compiler plugin under ts-jest, with the options nest-cli.json gives it,
// so the OpenAPI document in tests is the one `nest build` produces.
const transformer = require('@nestjs/swagger/plugin');

module.exports.name = 'nestjs-swagger-transformer';
module.exports.version = 1;
module.exports.factory = (cs) =>
  transformer.before(
    { introspectComments: true, classValidatorShim: true, dtoFileNameSuffix: ['.dto.ts', '.response.ts'] },
    cs.program,
  );
