package gate

import (
	"providerdir/quota"
	"providerdir/rest/apikey"
)

// Quota policies, as the contracts state them.
var (
	// PilotPolicy: 60 per rolling minute and 1,000 per rolling 24 hours (docs/contracts/supply-api.md
	// §8).
	PilotPolicy = quota.Policy{Name: "pilot", Windows: []quota.Window{quota.RollingMinute(60), quota.RollingDay(1000)}}
	// SandboxPolicy: 100 per hour (docs/contracts/resolver-api.md §8). The sandbox key is one key
	// shared by everyone, so its budget is counted per client address: metered per key, one busy user
	// would use up the sandbox for the world.
	SandboxPolicy = quota.Policy{Name: "sandbox", Windows: []quota.Window{quota.RollingHour(100)}}
	// StarterPolicy: 5,000 per hour (docs/contracts/resolver-api.md §8).
	StarterPolicy = quota.Policy{Name: "starter", Windows: []quota.Window{quota.RollingHour(5000)}}
	// ProPolicy: 50,000 per hour (docs/contracts/resolver-api.md §8).
	ProPolicy = quota.Policy{Name: "pro", Windows: []quota.Window{quota.RollingHour(50000)}}

	// AnonymousSupplyPolicy: anonymous GET /v1/npi/{npi}, 100 per hour per client address
	// (docs/contracts/supply-api.md §4 rule 8). Supply API responses to callers without a valid key
	// describe this budget.
	AnonymousSupplyPolicy = quota.Policy{Name: "v1-anonymous", Windows: []quota.Window{quota.RollingHour(100)}}
	// EvidenceDemoPolicy: the unauthenticated evidence-query demo on the service host, 10 per
	// 24 hours per client address (docs/contracts/supply-api.md §4, evidence query rule 7).
	EvidenceDemoPolicy = quota.Policy{Name: "evidence-demo", Windows: []quota.Window{quota.RollingDay(10)}}
	// AccessRequestPolicy: pilot access request submissions, valid or not, 10 per hour per
	// client address: enough for a person correcting a form a few times, too few to flood the
	// operator's queue.
	AccessRequestPolicy = quota.Policy{Name: "access-requests", Windows: []quota.Window{quota.RollingHour(10)}}
)

// PolicyFor returns the quota of a key tier.
func PolicyFor(t apikey.Tier) quota.Policy {
	switch t {
	case apikey.TierPilot:
		return PilotPolicy
	case apikey.TierSandbox:
		return SandboxPolicy
	case apikey.TierStarter:
		return StarterPolicy
	}
	return ProPolicy
}
