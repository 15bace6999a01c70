/** Writes jest's aggregated counts to a JSON file for .ci/run's closing line. */
const fs = require('node:fs');

class JsonSummaryReporter {
  constructor(_globalConfig, options) {
    this.outputFile = options.outputFile;
  }
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTotalTests, numFailedTestSuites } = results;
    fs.writeFileSync(this.outputFile, JSON.stringify({ numPassedTests, numFailedTests, numPendingTests, numTotalTests, numFailedTestSuites }));
  }
}
module.exports = JsonSummaryReporter;
