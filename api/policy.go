package api

import (
	"net/http"
	"slices"

	"github.com/semcat/semcat"
)

// The policy routes (SPEC §2.10, Gravitino 1.0's PolicyOperations and
// MetadataObjectPolicyOperations).

func (h *handler) createPolicy(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	var req semcat.PolicyCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	p, pos, err := h.svc.Policies.CreatePolicy(r.Context(), metalake, req)
	if err != nil {
		return err
	}
	return written(w, pos, "policy", p)
}

// listPolicies answers {"names"}, or with ?details=true {"policies"}.
func (h *handler) listPolicies(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	details, err := boolParam(r, "details")
	if err != nil {
		return err
	}
	if details {
		ps, err := h.svc.Policies.ListPolicyInfos(r.Context(), metalake)
		if err != nil {
			return err
		}
		RecordCount(r, len(ps))
		return ok(w, "policies", nonNil(ps))
	}
	names, err := h.svc.Policies.ListPolicies(r.Context(), metalake)
	if err != nil {
		return err
	}
	RecordCount(r, len(names))
	return ok(w, "names", nonNil(names))
}

func (h *handler) loadPolicy(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "policy")
	if err != nil {
		return err
	}
	p, err := h.svc.Policies.GetPolicy(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return ok(w, "policy", p)
}

func (h *handler) alterPolicy(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "policy")
	if err != nil {
		return err
	}
	var req semcat.PolicyUpdatesRequest
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := semcat.ValidatePolicyUpdates(req.Updates); err != nil {
		return err
	}
	p, pos, err := h.svc.Policies.AlterPolicy(r.Context(), n[0], n[1], req.Updates)
	if err != nil {
		return err
	}
	return written(w, pos, "policy", p)
}

// policySetRequest is Gravitino's PolicySetRequest: enable absent or null
// is false, as there.
type policySetRequest struct {
	Enable *bool `json:"enable"`
}

// setPolicy enables or disables a policy (PATCH {"enable": bool}).
func (h *handler) setPolicy(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "policy")
	if err != nil {
		return err
	}
	var req policySetRequest
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	pos, err := h.svc.Policies.SetPolicyEnabled(r.Context(), n[0], n[1], req.Enable != nil && *req.Enable)
	if err != nil {
		return err
	}
	return writtenNothing(w, pos)
}

func (h *handler) dropPolicy(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "policy")
	if err != nil {
		return err
	}
	dropped, pos, err := h.svc.Policies.DropPolicy(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return written(w, pos, "dropped", dropped)
}

// policyObjects answers {"metadataObjects": [{"type", "fullName"}]}: the
// objects the policy is attached to directly.
func (h *handler) policyObjects(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "policy")
	if err != nil {
		return err
	}
	objs, err := h.svc.Policies.PolicyObjects(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	RecordCount(r, len(objs))
	return ok(w, "metadataObjects", nonNil(objs))
}

// policyTarget returns the metalake and the object of an
// /objects/{type}/{fullName}/policies path; the type may be in any letter
// case, as Gravitino's clients send it.
func policyTarget(r *http.Request) (string, semcat.ObjectRef, error) {
	metalake, typ, fullName, err := objectVars(r)
	if err != nil {
		return "", semcat.ObjectRef{}, err
	}
	obj, err := semcat.PolicyObjectRef(metalake, typ, fullName)
	return metalake, obj, err
}

// listObjectPolicies answers an object's policy names, or with
// ?details=true its policies, its own and inherited (each with inherited).
func (h *handler) listObjectPolicies(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := policyTarget(r)
	if err != nil {
		return err
	}
	details, err := boolParam(r, "details")
	if err != nil {
		return err
	}
	ps, err := h.svc.Policies.ObjectPolicyInfos(r.Context(), metalake, obj)
	if err != nil {
		return err
	}
	RecordCount(r, len(ps))
	if details {
		return ok(w, "policies", nonNil(ps))
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return ok(w, "names", names)
}

// loadObjectPolicy answers one policy of an object, its own or inherited;
// a policy the object does not carry is NoSuchPolicyException, as in
// Gravitino.
func (h *handler) loadObjectPolicy(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := policyTarget(r)
	if err != nil {
		return err
	}
	name, err := pathName(r, "policy")
	if err != nil {
		return err
	}
	ps, err := h.svc.Policies.ObjectPolicyInfos(r.Context(), metalake, obj)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(ps, func(p *semcat.Policy) bool { return p.Name == name })
	if i < 0 {
		return semcat.NotFound(semcat.KindPolicy, "policy '%s' is not attached to %s '%s' or its parents", name, obj.Type, obj.FullName)
	}
	return ok(w, "policy", ps[i])
}

// associatePolicies takes {policiesToAdd, policiesToRemove} and answers the
// names of the object's own policies afterwards.
func (h *handler) associatePolicies(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := policyTarget(r)
	if err != nil {
		return err
	}
	var req semcat.PolicyAssociation
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	names, pos, err := h.svc.Policies.AssociatePolicies(r.Context(), metalake, obj, req)
	if err != nil {
		return err
	}
	return written(w, pos, "names", nonNil(names))
}
