// The failure converter of workers and clients whose payloads are encrypted (WAVELOOP_ENCRYPTION_KEY).
// A failure's message and stack trace go into its `encodedAttributes` payload, which the payload
// codecs then encrypt like every other payload, so a tool's error that quotes personal data is not
// stored in plaintext; the history keeps only "Encoded failure". Readers decode it through the
// codecs as they do any payload (the SDK, `decodeHistoryPayloads`, the codec server for the Web UI).
//
// The SDK loads this module by path (`DataConverter.failureConverterPath`) in the worker and the
// client, and bundles it into workflow code. It is CommonJS so that Node loads it from src/ (tests)
// and dist/ (the build copies it) alike.
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
