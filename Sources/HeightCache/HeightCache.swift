public enum HeightCacheModule {}
