package indexing

import (
	"hash/maphash"
	"sync"
)

// cacheShards is the number of independently locked parts of a mapStore.
// One lock for all of a cache made the workers of a pipeline take turns:
// every lookup writes the lock's reader count, one cache line that both
// CPUs then pass back and forth, thousands of times per module.
const cacheShards = 32

// mapStore is a cache of maps by key, safe for concurrent use, split into
// shards by the key's hash (the caller's: shardOfPair, shardOfBytes); each
// shard is emptied when it reaches its share of max entries. Values are
// immutable maps, shared by every caller.
type mapStore[K comparable] struct {
	max    int // entries per shard
	shards [cacheShards]mapShard[K]
}

type mapShard[K comparable] struct {
	sync.RWMutex
	m map[K]*IndexingMap
	_ [64]byte // keeps two shards' locks off one cache line
}

func newMapStore[K comparable](max int) *mapStore[K] {
	return &mapStore[K]{max: max/cacheShards + 1}
}

// get returns the map stored under k in shard i, or nil.
func (s *mapStore[K]) get(i uint64, k K) *IndexingMap {
	sh := &s.shards[i%cacheShards]
	sh.RLock()
	m := sh.m[k]
	sh.RUnlock()
	return m
}

// put stores m under k in shard i.
func (s *mapStore[K]) put(i uint64, k K, m *IndexingMap) {
	sh := &s.shards[i%cacheShards]
	sh.Lock()
	if sh.m == nil || len(sh.m) >= s.max {
		sh.m = map[K]*IndexingMap{}
	}
	sh.m[k] = m
	sh.Unlock()
}

// reset empties every shard.
func (s *mapStore[K]) reset() {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.Lock()
		sh.m = nil
		sh.Unlock()
	}
}

var shardSeed = maphash.MakeSeed()

// shardOfBytes is the shard of a byte-string key.
func shardOfBytes(key []byte) uint64 { return maphash.Bytes(shardSeed, key) }

// shardOfPair is the shard of a pair of maps (by their addresses).
func shardOfPair(p mapPair) uint64 { return maphash.Comparable(shardSeed, p) }
