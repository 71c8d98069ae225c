import * as ts from 'typescript';

/**
 * What sql-in-repositories.spec.ts looks for: the calls and properties through which code reaches
 * the database, read with the TypeScript parser (so comments and string contents never count).
 */

/** Calls that run SQL, or take a connection or a pool to run it, whatever their receiver. */
const SQL_CALLS = new Set([
  'query',
  'createQueryBuilder',
  'getRepository',
  'copyFrom',
  'copyTo',
  'copyOut',
  'copyCsv',
  'deleteInBatches',
  'deletePerTenantInBatches',
  'rawPool',
  'checkOut',
]);
/** Properties that are the database itself: TypeORM's driver (the raw pool) and EntityManager. */
const SQL_PROPERTIES = new Set(['driver', 'manager']);

/** Every use of the database in `text`, as "line: what". */
export function databaseUses(path: string, text: string): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const uses: string[] = [];
  const at = (node: ts.Node, what: string) =>
    uses.push(`${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const pgValues = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      /^pg(-copy-streams)?$/.test(node.moduleSpecifier.text) &&
      !node.importClause?.isTypeOnly
    ) {
      const bindings = node.importClause?.namedBindings;
      if (node.moduleSpecifier.text === 'pg-copy-streams') at(node, `import of pg-copy-streams`);
      else if (bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements)
          if (!element.isTypeOnly) pgValues.add(element.name.text);
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : ts.isIdentifier(callee)
          ? callee.text
          : undefined;
      if (name && SQL_CALLS.has(name)) at(node, `${name}(…)`);
      // TransactionHost's read: `this.tx.select(…)`.
      if (
        ts.isPropertyAccessExpression(callee) &&
        callee.name.text === 'select' &&
        /(^|\.)tx$/.test(callee.expression.getText(file))
      )
        at(node, `tx.select(…)`);
    }
    if (ts.isPropertyAccessExpression(node) && SQL_PROPERTIES.has(node.name.text))
      at(node, `.${node.name.text}`);
    if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      pgValues.has(node.expression.text)
    )
      at(node, `new ${node.expression.text}(…) of pg`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return uses;
}

/** Where SQL may run: repositories, database/ (migrations included), read models, and tests. */
export function mayRunSql(path: string): boolean {
  return (
    /\.repository\.ts$/.test(path) ||
    path.startsWith('src/database/') ||
    path.includes('/read-model/') ||
    /\.spec\.tsx?$/.test(path)
  );
}
