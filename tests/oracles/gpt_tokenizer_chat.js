// gpt-tokenizer's countChatCompletionTokens over requests read from stdin (test-only oracle).
// argv[2]: the unpacked package directory; stdin: {"model": "gpt-4o", "requests": [...]}; stdout: [counts].
const fs = require('fs');
const path = require('path');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const api = require(path.join(process.argv[2], 'cjs', 'model', input.model + '.js'));
process.stdout.write(JSON.stringify(input.requests.map((r) => api.countChatCompletionTokens(r))));
