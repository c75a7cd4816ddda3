// Validates FHIR R4 resources with the npm package fhir, written by others: one resource per
// line on standard input; one JSON line out with the count checked and each error.
const { Fhir } = require('fhir');
const fhir = new Fhir();
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const out = { checked: 0, errors: [] };
  for (const line of input.split('\n')) {
    if (line.trim() === '') continue;
    const resource = JSON.parse(line);
    out.checked++;
    const result = fhir.validate(resource);
    for (const m of result.messages || []) {
      if (m.severity === 'error') {
        out.errors.push(`${resource.resourceType}/${resource.id} ${m.location}: ${m.message}`);
      }
    }
  }
  process.stdout.write(JSON.stringify(out) + '\n');
});
