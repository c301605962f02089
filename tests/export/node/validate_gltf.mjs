// Validates .glb files with Khronos' glTF validator and prints one JSON report per file.
//   node validate_gltf.mjs FILE.glb [...]
import { readFileSync } from 'node:fs';
import validator from 'gltf-validator';

const reports = [];
for (const file of process.argv.slice(2)) {
  const report = await validator.validateBytes(new Uint8Array(readFileSync(file)), {
    maxIssues: 100,
  });
  reports.push({ file, issues: report.issues, info: report.info });
}
process.stdout.write(JSON.stringify(reports));
