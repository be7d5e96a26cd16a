package model

import "testing"

// IdentityColumns counts Identity, and each call of Identity returns a slice of its own (it is a declaration, not
// shared state: changing one copy changes no other).
func TestIdentity(t *testing.T) {
	a, b := Identity(), Identity()
	if len(a) != IdentityColumns {
		t.Fatalf("%d identity columns, IdentityColumns = %d", len(a), IdentityColumns)
	}
	a[0].Name = "changed"
	if b[0].Name != "experiment" || Identity()[0].Name != "experiment" {
		t.Error("Identity's slices are shared")
	}
}
