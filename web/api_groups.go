package web

import (
	"net/http"

	"github.com/newsrank/newsrank/news"
)

// groupRoutes are the endpoints of article groups.
func (s *Server) groupRoutes() []route {
	return []route{
		{method: "GET", path: "/api/groups", h: s.apiGroups},
		{method: "GET", path: "/api/groups/{group}/news", h: s.apiGroupNews},
		{method: "PUT", path: "/api/groups/{group}/news/{id}", access: writer, h: s.apiGroupAdd},
		{method: "DELETE", path: "/api/groups/{group}/news/{id}", access: writer, h: s.apiGroupRemove},
	}
}

// GET /api/groups
func (s *Server) apiGroups(w http.ResponseWriter, r *http.Request) error {
	st, err := s.newsStore()
	if err != nil {
		return err
	}
	if _, err := params(r); err != nil {
		return err
	}
	gs, err := st.Groups(r.Context())
	if err != nil {
		return err
	}
	type groupJSON struct {
		Name string `json:"name"`
		Size int64  `json:"size"`
	}
	out := make([]groupJSON, 0, len(gs))
	for _, g := range gs {
		out = append(out, groupJSON{g.Name, g.Size})
	}
	writeJSON(w, http.StatusOK, map[string]any{"groups": out})
	return nil
}

// groupName reads and checks the {group} path value.
func groupName(r *http.Request) (string, error) {
	g := r.PathValue("group")
	if err := news.ValidGroupName(g); err != nil {
		return "", err
	}
	return g, nil
}

// GET /api/groups/{group}/news?order=score|time&page=1&size=25
func (s *Server) apiGroupNews(w http.ResponseWriter, r *http.Request) error {
	st, err := s.newsStore()
	if err != nil {
		return err
	}
	g, err := groupName(r)
	if err != nil {
		return err
	}
	q, err := params(r, "order", "page", "size")
	if err != nil {
		return err
	}
	o, page, size, err := s.listParams(q)
	if err != nil {
		return err
	}
	p, err := st.GroupList(r.Context(), g, o, page, size)
	if err != nil {
		return err
	}
	out := s.pageJSON(o, g, p)
	writePage(w, &out)
	return nil
}

// PUT /api/groups/{group}/news/{id}
func (s *Server) apiGroupAdd(w http.ResponseWriter, r *http.Request) error {
	return s.groupMember(w, r, true)
}

// DELETE /api/groups/{group}/news/{id}
func (s *Server) apiGroupRemove(w http.ResponseWriter, r *http.Request) error {
	return s.groupMember(w, r, false)
}

func (s *Server) groupMember(w http.ResponseWriter, r *http.Request, add bool) error {
	st, err := s.newsStore()
	if err != nil {
		return err
	}
	g, err := groupName(r)
	if err != nil {
		return err
	}
	id, err := articleID(r)
	if err != nil {
		return err
	}
	if _, err := params(r); err != nil {
		return err
	}
	if add {
		err = st.AddToGroups(r.Context(), id, g)
	} else {
		err = st.RemoveFromGroups(r.Context(), id, g)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"group": g, "id": id, "member": add})
	return nil
}
