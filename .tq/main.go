package main

import (
	"fmt"
	"os"

	"github.com/blevesearch/bleve/v2"
	_ "github.com/semcat/semcat/analyzers"
)

func main() {
	idx, err := bleve.OpenUsing(os.Args[1], map[string]any{"read_only": true})
	if err != nil {
		panic(err)
	}
	for i := 2; i+1 < len(os.Args); i += 2 {
		q := bleve.NewTermQuery(os.Args[i+1])
		q.SetField(os.Args[i])
		r, err := idx.Search(bleve.NewSearchRequestOptions(q, 1, 0, false))
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s:%s %d\n", os.Args[i], os.Args[i+1], r.Total)
	}
}
