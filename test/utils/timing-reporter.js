// Where the suite's time goes, printed after every run (docs/architecture.md, "Testing", "Time"):
// the wall time, the sum of the files' own times, and the slowest files, so a file that grows
// slow is seen in the run that made it so. TEST_TIMINGS_FILE=path also writes every file's time
// as JSON, to compare runs.
const { relative } = require('node:path');
const { writeFileSync } = require('node:fs');

const SHOWN = 12;

class TimingReporter {
  constructor(globalConfig) {
    this.root = globalConfig.rootDir;
    this.files = [];
    this.started = Date.now();
  }

  onTestFileResult(test, result) {
    const { start, end } = result.perfStats;
    this.files.push({
      file: relative(this.root, test.path),
      project: test.context.config.displayName?.name ?? '',
      seconds: Math.round((end - start) / 100) / 10,
      tests: result.numPassingTests + result.numFailingTests,
    });
  }

  onRunComplete() {
    if (this.files.length === 0) return;
    const wall = (Date.now() - this.started) / 1000;
    const sum = this.files.reduce((total, f) => total + f.seconds, 0);
    const byProject = new Map();
    for (const f of this.files) byProject.set(f.project, (byProject.get(f.project) ?? 0) + f.seconds);
    const slowest = [...this.files].sort((a, b) => b.seconds - a.seconds).slice(0, SHOWN);
    const lines = [
      '',
      `Test time: ${wall.toFixed(0)} s wall, ${sum.toFixed(0)} s in ${this.files.length} files (` +
        [...byProject].map(([name, s]) => `${name || 'default'} ${s.toFixed(0)} s`).join(', ') +
        ')',
      `Slowest ${slowest.length} files:`,
      ...slowest.map((f) => `  ${f.seconds.toFixed(1).padStart(6)} s  ${f.file} (${f.tests} tests)`),
      '',
    ];
    process.stderr.write(lines.join('\n'));
    if (process.env.TEST_TIMINGS_FILE) {
      const files = [...this.files].sort((a, b) => b.seconds - a.seconds);
      writeFileSync(process.env.TEST_TIMINGS_FILE, JSON.stringify({ wall, files }, null, 2));
    }
  }
}

module.exports = TimingReporter;
