// Lints the texts given on stdin ([{ filePath, code }], JSON) with the repository's ESLint config,
// as if each were the file at filePath; prints each file's messages (JSON). A child process,
// because ESLint loads its config with import(), which Jest's CommonJS runtime cannot run.
import { ESLint } from 'eslint';

const input = JSON.parse(
  await new Promise((done) => {
    let text = '';
    process.stdin.on('data', (chunk) => (text += chunk));
    process.stdin.on('end', () => done(text));
  }),
);
const eslint = new ESLint({ cwd: process.cwd() });
const results = [];
for (const { filePath, code } of input) {
  const [result] = await eslint.lintText(code, { filePath });
  results.push({
    filePath,
    messages: result.messages.map(({ ruleId, message }) => ({ ruleId, message })),
  });
}
process.stdout.write(JSON.stringify(results));
