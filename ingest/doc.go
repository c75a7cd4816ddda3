// Package ingest loads a drop of federal source files into a new store generation, records what
// it loaded (the manifest), and switches the serving snapshot when every family it read is whole.
//
// An ingest finds the families present in a drop by their published file names, skips those
// whose files match the serving manifest byte for byte, and for each of the others streams its
// files through the readers (source/...), maps each record to a document (package mapping: the
// record in a stable JSON shape, its search keys, its 14-key provenance), and writes batches
// into one new generation on background writer lanes. Families load in a fixed order so that a
// later one may read an earlier one's output: Open Payments recipients are matched against the
// registry loaded in the same run, and the match method sets the record's confidence. A
// recipient without an NPI is matched by name, state and ZIP through composite keys that every
// active individual of the registry carries (stored.MatchKey), one posting-list lookup each.
//
// Projections run after the families: derived collections built from the new generation's
// sources, so they switch together with the data they were derived from.
//
//   - FHIR resources (mapping/fhirmap): the registry is read once in NPI order and merged with
//     the secondary practice locations, other names and endpoints, whose ids start with the NPI,
//     from scans in the same order, so there is no lookup per provider. The PECOS employer join
//     (individual -> enrollments -> reassignments -> receiving enrollment -> organization NPI) is
//     built in memory first from one scan of the enrollments and one of the reassignments, NPIs
//     held as numbers. Workers, one per core, build the resources; one goroutine hands them to
//     the batch writer. A resource is stored without its provenance codings, which are the same
//     for every record of a dataset: it names its tag set, stored once per generation, and the
//     FHIR surface inserts the set as it copies the resource out.
//     The projection reads the registry back instead of building each provider's resources as
//     the family reads its record: an individual's roles carry their employer organizations'
//     registry names and status, and the sandbox subset (the smallest active NPIs) is known,
//     like those organizations, only once the whole registry is read. A rebuild without a new
//     registry (new PECOS files, an upgrade) has no record in hand at all, so one path serves both.
//   - The supply studies: one pass over the registry records that hold a registered taxonomy
//     code counts every specialty and every registered code per state at once; with the Census
//     populations and the NUCC display names it writes one document per specialty and one per
//     specialty and code, each with its 51 ranked rows and the provenance of its sources.
//   - The sandbox subset: the fixed providers that sandbox credentials may see.
//
// A projection is rebuilt even when no file changed if the serving snapshot lacks an output it
// now writes or was built by rules this build no longer applies (a study method whose version
// changed), so an upgrade takes effect on the next ingest.
//
// Every collection an ingest writes is new and empty in its generation, so the batch writer
// loads it in bulk when the store can (store.Loader) and uses Put otherwise. It commits the open
// loads whenever a later family or projection must read what an earlier one wrote. Each
// document body is built in a buffer from a pool, given back once the store has copied it.
//
// A drop of NPPES weekly update files loads as a delta (delta.go): the changed records and what
// derives from them are written as small top layers over the serving generations
// (store.StackGeneration), so that the run takes time in proportion to the week, not to the
// registry; it switches in one step like any other run.
//
// Then the change set against the serving generation is computed by a merge join of the two
// generations in id order and stored as change records, and the serving pointer switches in one
// compare-and-swap (store.Switch). On error or cancellation nothing switches and the partial
// generation is dropped: the previous snapshot keeps serving, whole.
package ingest
