package catalog

// Interaction is what a FHIR request does with a resource type. The FHIR surface asks a grant
// whether it allows one; the SMART layer answers from the scopes it granted.
type Interaction string

// The interactions of the FHIR surface. The directory's data is read-only; create and delete
// apply to the Subscription type alone.
const (
	Read   Interaction = "read"
	Search Interaction = "search"
	Create Interaction = "create"
	Delete Interaction = "delete"
)
