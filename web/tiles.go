package web

import "providerdir/mapping/study"

// tilePos is a state's cell in the tile-grid map: column and row, from the top left.
type tilePos struct{ Col, Row int }

// tileGrid places the 50 states and DC on an 11 by 8 grid that keeps each state near its
// neighbours, with Alaska and Hawaii in the corners where maps usually put them.
var tileGrid = map[string]tilePos{
	"AK": {0, 0}, "ME": {10, 0},
	"WI": {5, 1}, "VT": {9, 1}, "NH": {10, 1},
	"WA": {0, 2}, "ID": {1, 2}, "MT": {2, 2}, "ND": {3, 2}, "MN": {4, 2}, "IL": {5, 2}, "MI": {6, 2}, "NY": {8, 2}, "MA": {9, 2},
	"OR": {0, 3}, "NV": {1, 3}, "WY": {2, 3}, "SD": {3, 3}, "IA": {4, 3}, "IN": {5, 3}, "OH": {6, 3}, "PA": {7, 3}, "NJ": {8, 3}, "CT": {9, 3}, "RI": {10, 3},
	"CA": {0, 4}, "UT": {1, 4}, "CO": {2, 4}, "NE": {3, 4}, "MO": {4, 4}, "KY": {5, 4}, "WV": {6, 4}, "VA": {7, 4}, "MD": {8, 4}, "DE": {9, 4},
	"AZ": {1, 5}, "NM": {2, 5}, "KS": {3, 5}, "AR": {4, 5}, "TN": {5, 5}, "NC": {6, 5}, "SC": {7, 5}, "DC": {8, 5},
	"OK": {3, 6}, "LA": {4, 6}, "MS": {5, 6}, "AL": {6, 6}, "GA": {7, 6},
	"HI": {0, 7}, "TX": {3, 7}, "FL": {8, 7},
}

// Tile geometry in SVG user units.
const (
	tileSize = 44
	tileStep = 48 // size plus the gap
	gridCols = 11
	gridRows = 8
)

// stateMap is the SVG map of one study.
type stateMap struct {
	Width, Height int
	Tiles         []tile
}

// tile is one state's square: its position, its row's figures and its text centre.
type tile struct {
	X, Y, TextX, TextY, Size int
	Row                      study.Row
}

// newStateMap lays out the rows on the grid; a row whose state has no cell (none of the 51
// lacks one) is left off the map and stays in the table.
func newStateMap(rows []study.Row) stateMap {
	m := stateMap{Width: gridCols*tileStep - (tileStep - tileSize), Height: gridRows*tileStep - (tileStep - tileSize)}
	for _, row := range rows {
		p, ok := tileGrid[row.StateCode]
		if !ok {
			continue
		}
		x, y := p.Col*tileStep, p.Row*tileStep
		m.Tiles = append(m.Tiles, tile{X: x, Y: y, TextX: x + tileSize/2, TextY: y + tileSize/2, Size: tileSize, Row: row})
	}
	return m
}
