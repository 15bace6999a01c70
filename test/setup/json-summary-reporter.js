/**
 * Writes jest's aggregated counts to a JSON file for .ci/run's closing line. The suite runs in
 * phases (scripts/jest-phases.ts): each phase adds its counts to what the file already holds
 * (.ci/run deletes it before the run).
 */
const fs = require('node:fs');

const KEYS = ['numPassedTests', 'numFailedTests', 'numPendingTests', 'numTotalTests', 'numFailedTestSuites'];

class JsonSummaryReporter {
  constructor(_globalConfig, options) {
    this.outputFile = options.outputFile;
  }
  onRunComplete(_contexts, results) {
    const before = fs.existsSync(this.outputFile) ? JSON.parse(fs.readFileSync(this.outputFile, 'utf8')) : {};
    const sum = Object.fromEntries(KEYS.map((k) => [k, (before[k] || 0) + (results[k] || 0)]));
    fs.writeFileSync(this.outputFile, JSON.stringify(sum));
  }
}
module.exports = JsonSummaryReporter;
